import Foundation
import Logging
import MakestagramCore
import MakestagramStore
import MakestagramStorePostgres
import MakestagramStoreSQLite

/// What the server's operator does on the server's machine, straight on the database that `serve` uses (the SQLite
/// file in the data folder, or the PostgreSQL database): the first moderator cannot be made over the API.
public enum Administration {
    /// Makes `username` a moderator, or stops them being one; the moderation log records it as the operator's.
    /// Works while servers run: on PostgreSQL every instance asks the database on each moderator request; on SQLite
    /// the running server reads the same file.
    public static func setModerator(_ username: String, moderator: Bool, configuration: ServerConfiguration)
        async throws
    {
        if let database = configuration.database {
            var logger = Logger(label: "makestagram.admin")
            logger.logLevel = .warning
            let store = try await PostgresStore.open(database, events: nil, logger: logger)
            defer { store.close() }
            try await Moderation.setModerator(username, moderator: moderator, on: store)
        } else {
            guard FileManager.default.fileExists(atPath: configuration.databasePath) else {
                throw StoreError.notFound("database in \(configuration.dataDirectory.path)")
            }
            let store = SQLiteStore(database: try AppDatabase(path: configuration.databasePath))
            try await Moderation.setModerator(username, moderator: moderator, on: store)
        }
    }
}
