import Foundation
import Logging
import PostgresNIO

@testable import MakestagramStorePostgres

/// Fresh databases on the PostgreSQL server that `MAKESTAGRAM_TEST_POSTGRES` names (the test command starts one:
/// scripts/postgres.sh); without it, PostgreSQL tests are not run.
public enum TestPostgres {
    /// The server's URL (its maintenance database), if tests should use PostgreSQL.
    public static var serverURL: String? {
        ProcessInfo.processInfo.environment["MAKESTAGRAM_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public static var isAvailable: Bool { serverURL != nil }

    /// Creates a database with every migration applied (a copy of one migrated once per test process: thirty tests
    /// starting together on two cores would otherwise migrate thirty databases at once) and answers its URL, and a
    /// function that drops it.
    public static func makeDatabase() async throws -> (url: String, drop: @Sendable () async -> Void) {
        guard let serverURL else { throw NoServer() }
        return try await createDatabase(on: serverURL, copying: try await templates.migrated(on: serverURL))
    }

    /// A new database with nothing in it, and what drops it (a migration's test migrates it step by step).
    public static func makeEmptyDatabase() async throws -> (url: String, drop: @Sendable () async -> Void) {
        guard let serverURL else { throw NoServer() }
        return try await createDatabase(on: serverURL, copying: nil)
    }

    /// Creates a database of a new name on `serverURL`, a copy of `template` if given.
    static func createDatabase(on serverURL: String, copying template: String?) async throws
        -> (url: String, drop: @Sendable () async -> Void)
    {
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await run("CREATE DATABASE \(name)" + (template.map { " TEMPLATE \($0)" } ?? ""), on: serverURL)
        var components = URLComponents(string: serverURL)!
        components.path = "/\(name)"
        return (
            components.string!,
            { try? await run("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: serverURL) }
        )
    }

    /// Runs one statement on the database `url` names, on a connection of its own.
    public static func run(_ sql: String, on url: String) async throws {
        try await withClient(url) { client, _ in _ = try await client.query(PostgresQuery(unsafeSQL: sql)) }
    }

    /// The first column of the first row of `sql`, a count or a sum, on the database `url` names.
    public static func integer(_ sql: String, on url: String) async throws -> Int64 {
        try await withClient(url) { client, _ in
            for try await row in try await client.query(PostgresQuery(unsafeSQL: sql)) {
                return try row.decode(Int64.self)
            }
            throw NoRow(sql: sql)
        }
    }

    struct NoRow: Error, CustomStringConvertible {
        var sql: String
        var description: String { "no row from \(sql)" }
    }

    /// Runs `body` with a client of its own for the database `url` names.
    public static func withClient<T: Sendable>(
        _ url: String, _ body: @Sendable (PostgresClient, Logger) async throws -> T
    ) async throws -> T {
        let options = try PostgresOptions(url: url)
        var logger = Logger(label: "test-postgres")
        logger.logLevel = .error
        let client = PostgresClient(configuration: options.client, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client, logger)
        }
    }

    static let templates = Templates()

    /// The migrated database that test databases copy, made on first use.
    actor Templates {
        private var made: Task<String, any Error>?

        func migrated(on serverURL: String) async throws -> String {
            if let made { return try await made.value }
            let task = Task {
                let name = "template_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
                try await run("CREATE DATABASE \(name)", on: serverURL)
                var components = URLComponents(string: serverURL)!
                components.path = "/\(name)"
                try await withClient(components.string!) { client, logger in
                    try await Schema.migrate(client, logger: logger)
                }
                return name
            }
            made = task
            return try await task.value
        }
    }

    struct NoServer: Error, CustomStringConvertible {
        var description: String { "MAKESTAGRAM_TEST_POSTGRES is not set" }
    }
}
