import Foundation
import MakestagramStore
import Synchronization
import _CryptoExtras

/// The RSA keys local actors sign with: one per person and one for the instance actor, each made (2048 bits) the
/// first time it is needed and kept in the store, so that every instance signs with the same key and a restart
/// keeps it. Held in memory once read.
public final class ActorKeys: Sendable {
    private let store: any FederationStoring
    private let held = Mutex<[Int64: _RSA.Signing.PrivateKey]>([:])

    public init(store: any FederationStoring) {
        self.store = store
    }

    /// The private key of `user`, or the instance actor's when nil.
    public func key(for user: Int64?) async throws -> _RSA.Signing.PrivateKey {
        let slot = user ?? 0
        if let key = held.withLock({ $0[slot] }) { return key }
        let der: Data
        if let stored = try await store.actorKey(user: user) {
            der = stored
        } else {
            let made = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            der = try await store.saveActorKey(user: user, key: made.derRepresentation)
        }
        let key = try _RSA.Signing.PrivateKey(derRepresentation: der)
        held.withLock { $0[slot] = key }
        return key
    }

    /// The public key of `user` (the instance actor's when nil), PEM.
    public func publicKeyPEM(for user: Int64?) async throws -> String {
        try await key(for: user).publicKey.pemRepresentation
    }
}
