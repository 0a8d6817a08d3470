import Foundation
import MakestagramStore
import Synchronization

/// The RSA keys local actors sign with: one per person and one for the instance actor, each made (2048 bits) the
/// first time it is needed and kept in the store, so that every instance signs with the same key and a restart
/// keeps it. Held in memory once read; a person's is forgotten when their profile changes (a new key is published
/// that way, ``FederationStoring/replaceActorKey(user:key:)``), on every instance, through the change log.
public final class ActorKeys: StoreEventSink {
    private let store = Mutex<(any FederationStoring)?>(nil)
    private let held = Mutex<(keys: [Int64: SigningKey], epoch: UInt64)>(([:], 0))

    public init() {}

    /// Reads and keeps keys in `store`.
    public func use(_ store: any FederationStoring) {
        self.store.withLock { $0 = store }
    }

    public func publish(_ event: StoreEvent) {
        guard case .profileChanged(let user) = event else { return }
        held.withLock { held in
            held.keys[user.id] = nil
            held.epoch &+= 1
        }
    }

    /// Makes a new key for `user` and keeps it in place of the old one.
    public func rotate(user: Int64) async throws {
        guard let store = store.withLock({ $0 }) else { throw StoreError.notFound("store") }
        try await store.replaceActorKey(
            user: user, key: try SigningKey.make().derRepresentation)
    }

    /// The private key of `user`, or the instance actor's when nil.
    public func key(for user: Int64?) async throws -> SigningKey {
        let slot = user ?? 0
        let (known, epoch) = held.withLock { ($0.keys[slot], $0.epoch) }
        if let key = known { return key }
        guard let store = store.withLock({ $0 }) else { throw StoreError.notFound("store") }
        let der: Data
        if let stored = try await store.actorKey(user: user) {
            der = stored
        } else {
            let made = try SigningKey.make()
            der = try await store.saveActorKey(user: user, key: made.derRepresentation)
        }
        let key = try SigningKey(derRepresentation: der)
        // Kept unless a key was forgotten meanwhile (this one may be the old one).
        held.withLock { if $0.epoch == epoch { $0.keys[slot] = key } }
        return key
    }

    /// The public key of `user` (the instance actor's when nil), PEM.
    public func publicKeyPEM(for user: Int64?) async throws -> String {
        try await key(for: user).publicKeyPEM
    }
}
