import Crypto
import Foundation

/// Bearer tokens: 256 random bits, shown to the client once; only their SHA-256 is stored.
enum SessionToken {
    /// A new token, base64url without padding (43 characters).
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The stored form of a token.
    static func hash(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(token.utf8)))
    }
}
