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

    /// Creates an empty database and answers its URL, and a function that drops it.
    public static func makeDatabase() async throws -> (url: String, drop: @Sendable () async -> Void) {
        guard let serverURL else { throw NoServer() }
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await run("CREATE DATABASE \(name)", on: serverURL)
        var components = URLComponents(string: serverURL)!
        components.path = "/\(name)"
        return (
            components.string!,
            { try? await run("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: serverURL) }
        )
    }

    /// Runs one statement on the database `url` names, on a connection of its own.
    public static func run(_ sql: String, on url: String) async throws {
        let options = try PostgresOptions(url: url)
        var logger = Logger(label: "test-postgres")
        logger.logLevel = .error
        let client = PostgresClient(configuration: options.client, backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await client.query(PostgresQuery(unsafeSQL: sql))
        }
    }

    struct NoServer: Error, CustomStringConvertible {
        var description: String { "MAKESTAGRAM_TEST_POSTGRES is not set" }
    }
}
