import Crypto
import Foundation
import MakestagramAPI

/// The photos of a private account are read only by its owner and the followers it accepted (``Visibility``), and so
/// are their files: a file of such a post is served only at a URL this signs, which the server hands out only in the
/// posts it shows to those readers. A signature names the file and the day it lapses (``lifetime`` days on, counted
/// from the start of the day it was made, so that a post's JSON is the same all day), under a key every instance
/// reads from the store. A follower who is no longer one keeps what they were given until it lapses.
public struct MediaSigning: Sendable {
    /// The key's bytes (a `SymmetricKey` is made of them for each use: it is not `Sendable`).
    private let key: Data

    /// How many days a signed URL stays good.
    public static let lifetime = 7
    /// The query item that carries the signature.
    public static let parameter = "s"

    public init(key: Data) {
        self.key = key
    }

    /// 32 random bytes, for a new key.
    public static func newKey() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The day number (days since 1970) of `date`.
    public static func day(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// The URL of `file` for a reader who may see it now.
    public func url(for file: String, now: Date = Date()) -> String {
        let expiry = Self.day(now) + Int64(Self.lifetime)
        return MediaPath.url(for: file) + "?\(Self.parameter)=\(expiry)-\(mac(file, expiry))"
    }

    /// Whether `token` (the value of ``parameter``) is a signature of `file` that has not lapsed.
    public func verify(file: String, token: String, now: Date = Date()) -> Bool {
        let parts = token.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let expiry = Int64(parts[0]), expiry >= Self.day(now),
            expiry <= Self.day(now) + Int64(Self.lifetime)
        else { return false }
        let expected = Array(mac(file, expiry).utf8)
        let given = Array(parts[1].utf8)
        // In constant time: the comparison must not tell how much of a guess was right.
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private func mac(_ file: String, _ expiry: Int64) -> String {
        let code = HMAC<SHA256>.authenticationCode(
            for: Data("\(file)\n\(expiry)".utf8), using: SymmetricKey(data: key))
        return code.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// `image` with every rendition's URL signed.
    public func signed(_ image: PostImage, now: Date = Date()) -> PostImage {
        func sign(_ variant: ImageVariant) -> ImageVariant {
            var variant = variant
            variant.url = url(for: MediaPath.fileName(ofURL: variant.url), now: now)
            return variant
        }
        var image = image
        image.full = sign(image.full)
        image.thumb = sign(image.thumb)
        image.variants = image.variants.map(sign)
        return image
    }

    /// `post` with the URLs of all its photos signed.
    public func signed(_ post: Post, now: Date = Date()) -> Post {
        var post = post
        post.photos = post.photos.map { signed($0, now: now) }
        return post
    }
}
