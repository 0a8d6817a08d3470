import Crypto
import Foundation
import MakestagramStore

/// Bearer tokens: 256 random bits, shown to the client once; only their SHA-256 is stored.
package enum SessionToken {
    /// A new token, base64url without padding (43 characters).
    package static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The stored form of a token.
    package static func hash(_ token: String) -> [UInt8] {
        var token = token
        return token.withUTF8 { Array(SHA256.hash(data: UnsafeRawBufferPointer($0))) }
    }

    /// The name a session is listed and revoked by: 32 hexadecimal digits from its stored hash, from which neither
    /// the hash nor the token can be recovered.
    package static func publicID(_ tokenHash: [UInt8]) -> String {
        SHA256.hash(data: Data("makestagram session id:".utf8) + tokenHash).prefix(16)
            .map { String(format: "%02x", $0) }.joined()
    }
}
