import Foundation
import MakestagramStore
import MakestagramStoreSQLite

/// One way of making a fresh, empty store; the contract suite runs against each.
struct StoreFactory: Sendable, CustomStringConvertible {
    var description: String
    /// Makes a store that publishes its committed changes to the given sink.
    var make: @Sendable (_ events: (any StoreEventSink)?) throws -> (store: any Store, cleanup: @Sendable () -> Void)

    /// SQLite on a real file in WAL mode, as the server runs it.
    static let sqlite = StoreFactory(description: "SQLite") { events in
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = SQLiteStore(
            database: try AppDatabase(path: folder.appendingPathComponent("db.sqlite").path), events: events)
        return (store, { try? FileManager.default.removeItem(at: folder) })
    }

    static let all: [StoreFactory] = [.sqlite]
}

/// Helpers shared by the contract tests.
extension Store {
    func user(_ name: String) async throws -> Int64 {
        try await createUser(NewUser(username: name, displayName: name.capitalized, passwordHash: "x")).id
    }

    func photoPost(by author: Int64, caption: String = "") async throws -> Int64 {
        let name = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return try await createPost(
            NewPost(
                authorID: author, caption: caption, width: 400, height: 300,
                full: StoredVariant(fileName: "\(name)f.jpg", width: 400, height: 300),
                thumb: StoredVariant(fileName: "\(name)t.jpg", width: 320, height: 320))
        ).id
    }

    /// Every post of a list, walking its pages.
    func allTimeline(_ viewer: Int64, pageSize: Int) async throws -> [Int64] {
        var ids: [Int64] = []
        var position = PageRequest.Position.start
        while true {
            let page = try await timeline(viewer: viewer, page: PageRequest(position: position, limit: pageSize))
            ids += page.items.map(\.id)
            guard let next = page.nextKey else { return ids }
            position = .after(next)
        }
    }
}
