import Foundation
import _CryptoExtras

#if canImport(CLibcrypto)
    import CLibcrypto
#endif

/// An actor's RSA private key, as requests are signed with it: RSASSA-PKCS1-v1_5 over SHA-256. Made and read with
/// swift-crypto; on Linux it signs with the system's OpenSSL (``CLibcrypto``), whose RSA is about twice as fast as
/// BoringSSL's where the CPU has AVX-512 IFMA, and a signature is most of what a delivery costs. Elsewhere it signs
/// with swift-crypto. Both give the same bytes (PKCS#1 v1.5 is deterministic).
public final class SigningKey: Sendable {
    /// The key as swift-crypto holds it: its DER and its public half.
    public let key: _RSA.Signing.PrivateKey
    /// The public key, PEM, as actor documents publish it.
    public let publicKeyPEM: String
    #if canImport(CLibcrypto)
        private nonisolated(unsafe) let native: OpaquePointer
        private let size: Int
    #endif

    public enum Failure: Error { case unreadable, signingFailed }

    public init(_ key: _RSA.Signing.PrivateKey) throws {
        self.key = key
        publicKeyPEM = key.publicKey.pemRepresentation
        #if canImport(CLibcrypto)
            let der = key.derRepresentation
            guard
                let native = der.withUnsafeBytes({ bytes in
                    mk_private_key(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
                })
            else { throw Failure.unreadable }
            self.native = native
            size = Int(mk_signature_size(native))
        #endif
    }

    /// Reads a key kept as DER (PKCS#1 or PKCS#8).
    public convenience init(derRepresentation der: Data) throws {
        try self.init(_RSA.Signing.PrivateKey(derRepresentation: der))
    }

    /// Makes a new 2048-bit key.
    public static func make() throws -> SigningKey {
        try SigningKey(_RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    /// The key as it is kept: DER.
    public var derRepresentation: Data { key.derRepresentation }

    #if canImport(CLibcrypto)
        deinit { mk_free_key(native) }
    #endif

    /// The signature of `data`.
    public func signature(for data: Data) throws -> Data {
        #if canImport(CLibcrypto)
            var signature = Data(count: size)
            let written = signature.withUnsafeMutableBytes { out in
                data.withUnsafeBytes { input in
                    mk_sign_rsa_sha256(
                        native, input.baseAddress, input.count, out.bindMemory(to: UInt8.self).baseAddress, size)
                }
            }
            guard written > 0 else { throw Failure.signingFailed }
            return signature.prefix(written)
        #else
            return try key.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation
        #endif
    }
}
