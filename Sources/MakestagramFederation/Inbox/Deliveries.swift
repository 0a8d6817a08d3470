import Foundation
import Logging

/// Sends activities to other servers' inboxes, each on its own, retrying with exponential backoff and jitter for
/// about two days, and giving up at once on an answer that cannot change (400, 401, 403, 404, 410).
///
/// Deliveries are held in memory: a restart loses those still waiting.
actor Deliveries {
    private let peers: PeerClient
    private let logger: Logger
    private var running: [UUID: Task<Void, Never>] = [:]
    private var stopped = false

    /// The waits before each try after the first, about two days in all.
    static let backoff: [Duration] = [
        .seconds(5), .seconds(30), .seconds(120), .seconds(600), .seconds(1800), .seconds(3600 * 2),
        .seconds(3600 * 6), .seconds(3600 * 12), .seconds(3600 * 24),
    ]
    /// Answers after which trying again cannot help.
    static let final: Set<Int> = [400, 401, 403, 404, 410]

    init(peers: PeerClient, logger: Logger) {
        self.peers = peers
        self.logger = logger
    }

    /// Sends `activity` to `inbox`, signed by `signer`, in the background.
    func enqueue(_ activity: Data, to inbox: URL, signer: @escaping PeerClient.Signer) {
        guard !stopped else { return }
        let id = UUID()
        running[id] = Task { [peers, logger] in
            var attempt = 0
            while !Task.isCancelled {
                do {
                    let status = try await peers.deliver(activity, to: inbox, signer: signer)
                    if (200..<300).contains(status) { break }
                    if Self.final.contains(status) {
                        logger.notice("delivery refused", metadata: ["inbox": "\(inbox)", "status": "\(status)"])
                        break
                    }
                    logger.info("delivery failed", metadata: ["inbox": "\(inbox)", "status": "\(status)"])
                } catch let failure as PeerClient.Failure {
                    if case .refused = failure {
                        logger.notice("delivery refused", metadata: ["inbox": "\(inbox)", "why": "\(failure)"])
                        break
                    }
                    logger.info("delivery failed", metadata: ["inbox": "\(inbox)", "why": "\(failure)"])
                } catch {
                    logger.info("delivery failed", metadata: ["inbox": "\(inbox)", "why": "\(error)"])
                }
                guard attempt < Self.backoff.count else {
                    logger.notice("delivery given up", metadata: ["inbox": "\(inbox)"])
                    break
                }
                let wait = Self.backoff[attempt]
                attempt += 1
                let jitter = Double.random(in: 0.8...1.2)
                try? await Task.sleep(for: wait * jitter)
            }
            await self.finished(id)
        }
    }

    private func finished(_ id: UUID) {
        running[id] = nil
    }

    /// Stops every delivery still waiting.
    func stop() {
        stopped = true
        for task in running.values { task.cancel() }
        running = [:]
    }
}
