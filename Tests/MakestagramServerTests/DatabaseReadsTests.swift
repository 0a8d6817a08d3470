import Foundation
import HTTPTypes
import HummingbirdTesting
import MakestagramAPI
import ServerTestSupport
import Testing

@testable import MakestagramServer
@testable import MakestagramStoreSQLite

/// A request that needs a database connection while all of them are busy waits for one without holding up the
/// thread it runs on: the server keeps answering others.
@Suite struct DatabaseReadsTests {
    /// Holds one of the pool's reader connections on a thread of its own until `release` is signalled.
    func hold(_ database: AppDatabase, held: DispatchSemaphore, release: DispatchSemaphore) {
        Thread.detachNewThread {
            precondition(database.readers.tryTake())
            defer { database.readers.release() }
            try? database.writer.unsafeRead { _ in
                held.signal()
                release.wait()
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func requestsWaitingForAConnectionDoNotHoldUpTheServer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("makestagram-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ServerConfiguration()
        configuration.dataDirectory = folder
        configuration.port = 0
        configuration.logLevel = .warning
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let database = try AppDatabase(path: configuration.databasePath, readers: 2)
        let app = try await buildApplication(configuration, database: database)
        try await app.test(.live) { client in
            let alice = try await client.signUp("alice")
            let (held, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            for _ in 0..<database.readers.capacity { hold(database, held: held, release: release) }
            for _ in 0..<database.readers.capacity { held.wait() }
            // More readers than the pool holds, and more than the threads that run requests.
            let waiting = (0..<8).map { _ in
                Task { try await client.send(.get, "/api/v1/me", as: alice).status }
            }
            // Answered while every one of those still waits for a connection: on a connection of its own, since the
            // test client sends its requests one after another on one connection.
            let port = try #require(client.port)
            let other = try await TestClient.withClient(host: "127.0.0.1", port: port) { try await $0.get("/healthz") }
            #expect(other.status == .ok)
            #expect(database.readers.capacity == 2)
            for _ in 0..<database.readers.capacity { release.signal() }
            for request in waiting { #expect(try await request.value == .ok) }
        }
    }
}
