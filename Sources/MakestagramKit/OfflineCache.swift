import Foundation
import MakestagramAPI

/// What the SDK keeps on disk so that an app shows something at launch before the network answers: the feed pages
/// last seen, the images loaded, and likes made while offline. One folder per server and user; files are written
/// atomically, and a file that cannot be read is treated as absent (a cache never stops an app from starting).
public struct OfflineCache: Sendable {
    /// The folder holding the cache.
    public let directory: URL

    /// A feed as it was last shown: its first posts, and whether older ones exist.
    struct FeedSnapshot: Codable {
        var posts: [Post]
        var hasMore: Bool
    }

    /// A cache in `directory` (created when first written).
    public init(directory: URL) {
        self.directory = directory
    }

    /// The cache of `username` on `server` inside `folder`; nil when there is no folder.
    init?(in folder: URL?, server: URL, username: String) {
        guard let folder else { return nil }
        let host = "\(server.host ?? "server")-\(server.port ?? (server.scheme == "https" ? 443 : 80))"
        self.init(directory: folder.appendingPathComponent(host).appendingPathComponent(username))
    }

    /// The platform's caches folder (`~/Library/Caches/makestagram`, `~/.cache/makestagram`).
    public static var defaultDirectory: URL? {
        FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first?
            .appendingPathComponent("makestagram")
    }

    // MARK: Feeds

    func feed(_ key: String) -> FeedSnapshot? {
        read(FeedSnapshot.self, "feeds/\(key).json")
    }

    func saveFeed(_ snapshot: FeedSnapshot, key: String) {
        write(snapshot, "feeds/\(key).json")
    }

    // MARK: Pending likes

    func pendingLikes() -> [Int64: Bool] {
        read([String: Bool].self, "pending-likes.json").map { stored in
            Dictionary(uniqueKeysWithValues: stored.compactMap { key, value in Int64(key).map { ($0, value) } })
        } ?? [:]
    }

    func savePendingLikes(_ likes: [Int64: Bool]) {
        write(Dictionary(uniqueKeysWithValues: likes.map { (String($0.key), $0.value) }), "pending-likes.json")
    }

    // MARK: Images

    /// The stored bytes of a media URL, if it was loaded before.
    func image(_ url: String) -> Data? {
        FileManager.default.contents(atPath: imageFile(url).path)
    }

    func storeImage(_ data: Data, for url: String) {
        try? store(data, at: imageFile(url))
    }

    /// Media names are server-chosen (`<32 hex>.jpg`) and never reused, so they name the cached file; anything
    /// else is hashed.
    private func imageFile(_ url: String) -> URL {
        let name = url.split(separator: "/").last.map(String.init) ?? ""
        let safe =
            name.count <= 64 && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." } && !name.hasPrefix(".")
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return directory.appendingPathComponent("images/" + (safe ? name : String(hash, radix: 16)))
    }

    /// Removes everything (logging out).
    public func clear() {
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: Files

    private func read<T: Decodable>(_ type: T.Type, _ path: String) -> T? {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(path).path) else {
            return nil
        }
        return try? JSONCoding.decoder().decode(T.self, from: data)
    }

    private func write<T: Encodable>(_ value: T, _ path: String) {
        guard let data = try? JSONCoding.encoder().encode(value) else { return }
        try? store(data, at: directory.appendingPathComponent(path))
    }

    private func store(_ data: Data, at file: URL) throws {
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file, options: .atomic)
    }
}
