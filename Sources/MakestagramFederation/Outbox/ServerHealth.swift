import Foundation
import MakestagramStore
import Metrics
import Synchronization

/// Which other servers fail, and since when: what deliveries found, kept in the store (``FederationStoring/
/// deliveryServers()``) and mirrored here, read again each minute so that every instance learns what the others
/// found. A server that has failed without answering for ``giveUpAfter`` is no longer tried (its deliveries are given
/// up at once) until it sends something or a moderator retries it.
final class ServerHealth: Sendable {
    let giveUpAfter: TimeInterval
    private let failingSince = Mutex<[String: Date]>([:])
    private let failingGauge = Gauge(label: "makestagram_federation_servers", dimensions: [("state", "failing")])
    private let givenUpGauge = Gauge(label: "makestagram_federation_servers", dimensions: [("state", "given_up")])
    private let pendingGauge = Gauge(label: "makestagram_federation_deliveries_pending")

    init(giveUpAfter: TimeInterval) {
        self.giveUpAfter = giveUpAfter
    }

    /// Whether `server` is no longer tried.
    func isGivenUp(_ server: String, now: Date = Date()) -> Bool {
        guard let since = failingSince.withLock({ $0[server] }) else { return false }
        return now.timeIntervalSince(since) >= giveUpAfter
    }

    /// Since when `server` fails, as known here.
    func failing(_ server: String) -> Date? {
        failingSince.withLock { $0[server] }
    }

    /// Takes what this instance's deliveries found.
    func note(_ results: [ServerResult], at now: Date = Date()) {
        guard !results.isEmpty else { return }
        let failing = failingSince.withLock { failing in
            for result in results {
                if result.answered {
                    failing[result.server] = nil
                } else if failing[result.server] == nil {
                    failing[result.server] = now
                }
            }
            return failing
        }
        record(failing, now: now)
    }

    /// Counts again, for the metrics, the servers failing and those given up (which time alone changes).
    func recount(now: Date = Date()) {
        record(failingSince.withLock { $0 }, now: now)
    }

    private func record(_ failing: [String: Date], now: Date) {
        failingGauge.record(failing.count)
        givenUpGauge.record(failing.values.filter { now.timeIntervalSince($0) >= giveUpAfter }.count)
    }

    /// Forgets that `server` fails (it sent something, or a moderator retries it); true when it was failing.
    func heard(_ server: String) -> Bool {
        failingSince.withLock { $0.removeValue(forKey: server) != nil }
    }

    /// Takes what the store holds (every instance's findings), and the number of deliveries waiting, for the metrics.
    func replace(_ records: [ServerRecord], pending: Int, now: Date = Date()) {
        var failing: [String: Date] = [:]
        for record in records { if let since = record.failingSince { failing[record.server] = since } }
        failingSince.withLock { $0 = failing }
        record(failing, now: now)
        pendingGauge.record(pending)
    }
}
