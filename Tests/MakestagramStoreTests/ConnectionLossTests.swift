import Foundation
import Logging
import MakestagramStore
import PostgresNIO
import PostgresTestSupport
import Synchronization
import Testing

@testable import MakestagramStorePostgres

/// A PostgreSQL server that closes connections (a restart, a failover, an administrator's `pg_terminate_backend`)
/// must cost the requests in flight an answer of "unavailable" at worst, never an answer that never comes.
@Suite(.enabled(if: TestPostgres.isAvailable, "needs MAKESTAGRAM_TEST_POSTGRES"))
struct ConnectionLossTests {
    @Test func readsWhileTheServerKeepsClosingConnectionsAllAnswer() async throws {
        let (url, drop) = try await TestPostgres.makeDatabase()
        var options = try PostgresOptions(url: url + "?pool=4")
        options.operationTimeout = .seconds(2)
        // The instance says it lost its listening connection each time: not what this test looks at.
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let store = try await PostgresStore.open(options, events: nil, logger: quiet)
        let running = Task { try await store.run() }
        let tally = ReadTally()
        // Sixteen readers, four connections: leases are handed on as soon as they come back, so some land on
        // connections the server has just closed.
        let readers = (0..<16).map { _ in
            Task {
                while !tally.stopped {
                    tally.started()
                    do {
                        _ = try await store.read { connection in
                            try await connection.query("SELECT 1", logger: Logger(label: "test")).collect()
                        }
                        tally.finished(ok: true)
                    } catch {
                        tally.finished(ok: false)
                    }
                }
            }
        }
        let database = try #require(URL(string: url)?.lastPathComponent)
        for _ in 0..<60 {
            try await TestPostgres.run(
                """
                SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE datname = '\(database)' AND pid <> pg_backend_pid()
                """, on: url)
            try await Task.sleep(for: .milliseconds(50))
        }
        tally.stop()
        // Every read has answered within the operation timeout.
        let deadline = ContinuousClock.now + .seconds(10)
        while tally.inFlight > 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(tally.inFlight == 0, "reads that never answered")
        #expect(tally.answered > 100, "the store kept serving between the closings")
        // And the store serves once the storm is over.
        let rows = try await store.read { connection in
            try await connection.query("SELECT 1", logger: Logger(label: "test")).collect().count
        }
        #expect(rows == 1)
        for reader in readers { reader.cancel() }
        store.close()
        running.cancel()
        _ = await running.result
        await drop()
    }
}

/// Counts the reads of ``ConnectionLossTests``.
private final class ReadTally: Sendable {
    private struct Counts {
        var started = 0
        var finished = 0
        var answered = 0
        var stopped = false
    }

    private let counts = Mutex(Counts())

    var stopped: Bool { counts.withLock { $0.stopped } }
    var inFlight: Int { counts.withLock { $0.started - $0.finished } }
    var answered: Int { counts.withLock { $0.answered } }

    func started() { counts.withLock { $0.started += 1 } }
    func stop() { counts.withLock { $0.stopped = true } }

    func finished(ok: Bool) {
        counts.withLock {
            $0.finished += 1
            if ok { $0.answered += 1 }
        }
    }
}
