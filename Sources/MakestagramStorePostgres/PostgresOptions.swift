import Foundation
import PostgresNIO

/// Where the database is and how to use it, from a URL such as `postgres://user:password@host:5432/database`.
///
/// The query may say `sslmode=disable`, `prefer` (the default: TLS when the server offers it) or `require`, and
/// `pool=N` for the most connections this instance opens (default 20).
public struct PostgresOptions: Sendable {
    /// Why a database URL cannot be used.
    public struct InvalidURL: Error, CustomStringConvertible {
        public var description: String
    }

    var client: PostgresClient.Configuration
    /// How long committed changes stay in the change table: an instance cut off from the database for longer must
    /// forget what it holds and tell its live clients to load again.
    public var changeRetention: Duration = .seconds(300)
    /// The most changes one read of the change table takes for the caches and live clients: an instance far
    /// behind (after a partition, or while a long transaction holds the oldest running one back) reads its backlog
    /// batch by batch instead of all of it at every read.
    public var changeReadBatch = 2_000
    /// How often the change table is read when no notification arrives.
    public var pollInterval: Duration = .milliseconds(250)
    /// How long a statement or transaction may take, waiting for a connection included, before it fails as
    /// unavailable (503).
    public var operationTimeout: Duration = .seconds(5)
    /// How long caches answer after the last successful read of the change stream.
    public var staleness: Duration = .seconds(1)

    /// The database as `user@host:port/database`, without the password (for logs and errors).
    public var displayName: String {
        "\(client.username)@\(client.host ?? "?"):\(client.port ?? 5432)/\(client.database ?? client.username)"
    }

    /// Options for the database `url` names (`postgres://` or `postgresql://`).
    public init(url: String) throws {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme),
            let host = components.host, !host.isEmpty
        else {
            throw InvalidURL(description: "not a PostgreSQL URL (postgres://user:password@host:5432/database): \(url)")
        }
        let username = components.user?.removingPercentEncoding ?? "postgres"
        let password = components.password?.removingPercentEncoding
        let database = components.path.count > 1 ? String(components.path.dropFirst()) : nil
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let port = components.port ?? 5432
        let clientTLS: PostgresClient.Configuration.TLS
        switch query["sslmode"] ?? "prefer" {
        case "disable": clientTLS = .disable
        case "allow", "prefer": clientTLS = .prefer(.makeClientConfiguration())
        case "require", "verify-ca", "verify-full": clientTLS = .require(.makeClientConfiguration())
        case let mode:
            throw InvalidURL(description: "sslmode must be disable, prefer or require, not '\(mode)'")
        }
        client = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: clientTLS)
        // A database that cannot be reached fails requests within three seconds (503), not after a hang.
        client.options.connectTimeout = .seconds(3)
        if let pool = query["pool"] {
            guard let size = Int(pool), size > 0 else {
                throw InvalidURL(description: "pool must be a positive number of connections, not '\(pool)'")
            }
            client.options.maximumConnections = size
        }
    }
}
