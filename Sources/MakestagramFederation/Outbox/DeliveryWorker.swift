import Foundation
import Logging
import MakestagramAPI
import MakestagramStore
import ServiceLifecycle
import Synchronization

/// Sends queued deliveries, on every instance: takes those whose time has come (a lease keeps other instances off
/// them while they are sent), sends several at once so that a slow server holds up only its own, and records each
/// outcome. A failure is tried again with exponential backoff and jitter, for about two days; an answer that cannot
/// change (400, 401, 403, 404, 410) or an address that may not be reached ends it at once.
///
/// A server that fails (no answer, a 5xx, a 429) is left alone for a while, growing as it keeps failing: deliveries
/// to it meanwhile are put back to that time without a connection, so that a server that is down gets one attempt
/// now and then, not one per queued delivery. Any success there ends it. How each server answers is recorded with the
/// outcomes (``ServerHealth``); a server that has failed for long is no longer tried until it sends something.
final class DeliveryWorker<S: Store>: Service {
    let federation: Federation<S>
    /// How many deliveries are sent at once.
    let concurrency: Int
    /// How long a taken delivery is kept from others: longer than one attempt can take (a 10-second exchange, and
    /// the wait for its outcome to be recorded with others'), and what a delivery taken by an instance that died
    /// waits before another sends it.
    let lease: Duration
    /// Servers that failed lately (by host and port): how many times in a row, and until when they are left alone.
    private let resting = Mutex<[String: (failures: Int, until: Date)]>([:])
    private let rings: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    /// How many times the worker was woken, and the bell of a wait in ``sendDue()`` (while some deliveries are in
    /// flight, the queue is looked at again as soon as more are queued, not at the next tick).
    private let wakes = Atomic<UInt64>(0)
    /// The servers whose answer was written to the store lately, with when (``worthWriting(_:)``).
    private let written = Mutex<[String: ContinuousClock.Instant]>([:])
    /// Deliveries the consumer queued and took for this worker (``hand(_:)``), with when, oldest first.
    private let handed = Mutex<[(delivery: QueuedDelivery, at: ContinuousClock.Instant)]>([])
    private let waiting = Mutex<AsyncStream<Void>.Continuation?>(nil)
    var logger: Logger { federation.logger }

    /// Answers after which trying again cannot help.
    static var final: Set<Int> { [400, 401, 403, 404, 410] }
    /// The most attempts: the waits between them (30 s doubling, at most 12 h) add up to about two days.
    static var maxAttempts: Int { 15 }

    init(federation: Federation<S>, concurrency: Int = 32, lease: Duration = .seconds(45)) {
        self.federation = federation
        self.concurrency = concurrency
        self.lease = lease
        (rings, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Gives the worker deliveries just queued and taken for it (their lease running), and wakes it.
    func hand(_ deliveries: [QueuedDelivery]) {
        let now = ContinuousClock.now
        handed.withLock { $0 += deliveries.map { ($0, now) } }
        wake()
    }

    /// Up to `limit` handed deliveries. One handed more than half a lease ago (the worker was behind) is left to the
    /// queue, which makes it due again when its lease ends, rather than sent so late that another instance may claim
    /// it as well.
    private func takeHanded(_ limit: Int) -> [QueuedDelivery] {
        let now = ContinuousClock.now
        return handed.withLock { handed in
            handed.removeAll { now - $0.at > lease / 2 }
            let taken = handed.prefix(limit).map(\.delivery)
            handed.removeFirst(taken.count)
            return taken
        }
    }

    /// The server results among `results` worth writing: every failure, and an answer unless the same server's answer
    /// was written less than a minute ago and it has not failed since here (the moderators' page shows when a server
    /// last answered to the minute; a fan-out to a hundred servers would otherwise write each a hundred times).
    func worthWriting(_ results: [ServerResult]) -> [ServerResult] {
        let now = ContinuousClock.now
        return written.withLock { written in
            if written.count > 10_000 { written = [:] }
            return results.filter { result in
                guard result.answered else {
                    written[result.server] = nil
                    return true
                }
                if let at = written[result.server], now - at < .seconds(60) { return false }
                written[result.server] = now
                return true
            }
        }
    }

    /// Wakes the worker: deliveries were queued.
    func wake() {
        wakes.add(1, ordering: .releasing)
        continuation.yield()
        waiting.withLock { _ = $0?.yield() }
    }

    /// Returns after a second, or as soon as the worker is woken; at once if it was woken since `seen`.
    private func pause(after seen: UInt64) async {
        let (stream, bell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        waiting.withLock { $0 = bell }
        defer {
            waiting.withLock { $0 = nil }
            bell.finish()
        }
        if wakes.load(ordering: .acquiring) != seen { return }
        await withTaskGroup(of: Void.self) { race in
            race.addTask { try? await Task.sleep(for: .seconds(1)) }
            race.addTask { for await _ in stream { return } }
            await race.next()
            race.cancelAll()
        }
    }

    /// The wait before attempt `attempts + 1`, jittered.
    static func backoff(after attempts: Int) -> TimeInterval {
        let base = min(30 * pow(2, Double(max(0, attempts - 1))), 12 * 3600)
        return base * Double.random(in: 0.8...1.2)
    }

    func run() async throws {
        // What this process took before it stopped (kill -9, a crash) is sent now, not when its lease ends.
        do { try await federation.store.releaseStaleLeases(lease) } catch {
            logger.warning("releasing the deliveries of a stopped process failed", metadata: ["error": "\(error)"])
        }
        let ticker = Task { [continuation] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                continuation.yield()
            }
        }
        defer { ticker.cancel() }
        var lastPurge = Date.distantPast
        var lastHealth = Date.distantPast
        for await _ in rings.cancelOnGracefulShutdown() {
            do {
                if Date().timeIntervalSince(lastHealth) > 60 {
                    lastHealth = Date()
                    try await federation.readHealth()
                } else {
                    federation.health.recount()
                }
                try await sendDue()
                if Date().timeIntervalSince(lastPurge) > 3600 {
                    lastPurge = Date()
                    try await federation.store.purgeDeliveries(finishedBefore: Date().addingTimeInterval(-7 * 86400))
                }
            } catch {
                logger.warning("sending deliveries failed; trying again", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Sends every due delivery, up to ``concurrency`` at once, until none is due: first those the consumer handed
    /// over (``hand(_:)``), then the queue's. Slots are refilled as deliveries end (once a quarter of them is free, so
    /// that taking more is one write per several deliveries), so that a server that answers slowly holds one slot
    /// until its time limit, not the deliveries to every other server; outcomes are recorded several at a time, in
    /// one write each.
    func sendDue() async throws {
        let store = federation.store
        var senders: [Int64: (user: UserSummary, leaving: Bool)] = [:]
        // A child answers a delivery's outcome, or nil: a pause ended (a second, or more deliveries were queued), after
        // which the queue is looked at again, so that deliveries queued while a slow server holds a slot do not wait
        // for it.
        try await withThrowingTaskGroup(of: (id: Int64, outcome: DeliveryOutcome, server: ServerResult?)?.self) {
            group in
            var inFlight = 0
            var ticking = false
            var exhausted = false
            var finished: [(id: Int64, outcome: DeliveryOutcome)] = []
            var servers: [ServerResult] = []
            func record() async {
                guard !finished.isEmpty else { return }
                do {
                    try await store.finishDeliveries(finished, servers: worthWriting(servers))
                    federation.health.note(servers)
                } catch {
                    logger.warning("recording deliveries failed", metadata: ["error": "\(error)"])
                }
                finished = []
                servers = []
            }
            var seen: UInt64 = 0
            while true {
                let free = concurrency - inFlight
                if !exhausted && (inFlight == 0 || free >= max(1, concurrency / 4)) {
                    seen = wakes.load(ordering: .acquiring)
                    // Those handed by the consumer first, then the queue's (once those run out: a fan-out to a hundred
                    // servers claims once, not once a slot).
                    var due = takeHanded(free)
                    if due.count < free {
                        let claimed = try await store.claimDeliveries(limit: free - due.count, lease: lease)
                        exhausted = claimed.count < free - due.count
                        due += claimed
                    }
                    // Each sender is read once while the worker runs.
                    for id in Set(due.compactMap(\.delivery.sender)) where senders[id] == nil {
                        if let sender = try await store.sender(id: id) { senders[id] = sender }
                    }
                    let known = senders
                    for queued in due {
                        group.addTask {
                            let (outcome, server) = await self.send(queued, senders: known)
                            return (queued.id, outcome, server)
                        }
                    }
                    inFlight += due.count
                }
                guard inFlight > 0 else {
                    group.cancelAll()  // a tick still waiting
                    break
                }
                if exhausted && !ticking {
                    ticking = true
                    group.addTask { [seen] in
                        await self.pause(after: seen)
                        return nil
                    }
                }
                guard let next = try await group.next() else { break }
                guard let result = next else {
                    ticking = false
                    exhausted = false
                    continue
                }
                inFlight -= 1
                finished.append((result.id, result.outcome))
                if let server = result.server { servers.append(server) }
                // A delivery ended: more may be due by now (retries coming of age, new deliveries). Outcomes are
                // written half a round at a time.
                if inFlight == 0 || finished.count >= max(1, concurrency / 2) {
                    await record()
                    exhausted = false
                }
            }
            await record()
        }
    }

    /// The server of `inbox`, as it is left alone: host and port.
    static func server(of inbox: URL) -> String {
        ActivityStreams.domain(of: inbox) ?? ""
    }

    /// When the server that `outcome` came from may be tried again, if it is to be left alone now.
    func noteOutcome(_ outcome: DeliveryOutcome, server: String) {
        resting.withLock { resting in
            switch outcome {
            case .retry(_, let status, _) where status == nil || status! >= 500 || status == 429:
                let failures = (resting[server]?.failures ?? 0) + 1
                resting[server] = (failures, Date().addingTimeInterval(Self.backoff(after: failures)))
            case .delivered, .gaveUp(.some, _):
                resting[server] = nil
            default: break
            }
        }
    }

    /// Sends one delivery; answers how it ended, and how its server answered if it was reached.
    private func send(_ queued: QueuedDelivery, senders: [Int64: (user: UserSummary, leaving: Bool)]) async -> (
        DeliveryOutcome, ServerResult?
    ) {
        let delivery = queued.delivery
        let outcome: DeliveryOutcome
        var answer: ServerResult?
        do {
            guard let inbox = URL(string: delivery.inbox) else {
                throw PeerClient.Failure.refused(.badHost)
            }
            let server = Self.server(of: inbox)
            if federation.health.isGivenUp(server) {
                return (
                    .gaveUp(status: nil, error: "its server failed for too long; tried again once it sends something"),
                    nil
                )
            }
            if let until = resting.withLock({ $0[server]?.until }), until > Date() {
                // Its server is left alone: back to the queue for then, without a connection.
                logger.debug("delivery put off: its server is failing", metadata: ["inbox": "\(delivery.inbox)"])
                return (
                    queued.attempts >= Self.maxAttempts
                        ? .gaveUp(status: nil, error: "its server kept failing")
                        : .retry(
                            at: until.addingTimeInterval(Double.random(in: 0...5)), status: nil,
                            error: "its server is failing"),
                    nil
                )
            }
            let sender = delivery.sender.flatMap { senders[$0] }
            if delivery.sender != nil && sender == nil {
                outcome = .gaveUp(status: nil, error: "the sender is gone")
            } else if let sender, sender.leaving,
                delivery.activityID != federation.farewellID(of: sender.user.username)
            {
                // Of an account being deleted only its farewell is sent: nothing may arrive after it.
                outcome = .gaveUp(status: nil, error: "the sender is gone")
            } else {
                let status = try await federation.peers.deliver(
                    delivery.body, to: inbox, signer: federation.signer(for: sender?.user))
                outcome = Self.outcome(status: status, error: nil, attempts: queued.attempts)
                answer =
                    status >= 500 || status == 429
                    ? ServerResult(server: server, answered: false, error: "answered \(status)")
                    : ServerResult(server: server, answered: true)
            }
        } catch let failure as PeerClient.Failure {
            if case .refused = failure {
                outcome = .gaveUp(status: nil, error: failure.description)
            } else {
                outcome = Self.outcome(status: nil, error: failure.description, attempts: queued.attempts)
                if let inbox = URL(string: delivery.inbox) {
                    answer = ServerResult(server: Self.server(of: inbox), answered: false, error: failure.description)
                }
            }
        } catch {
            outcome = Self.outcome(status: nil, error: "\(error)", attempts: queued.attempts)
            if let inbox = URL(string: delivery.inbox) {
                answer = ServerResult(server: Self.server(of: inbox), answered: false, error: "\(error)")
            }
        }
        if let inbox = URL(string: delivery.inbox) { noteOutcome(outcome, server: Self.server(of: inbox)) }
        switch outcome {
        case .delivered: break
        case .retry(_, let status, let error), .gaveUp(let status, let error):
            logger.info(
                "delivery failed",
                metadata: [
                    "inbox": "\(delivery.inbox)", "activity": "\(delivery.activityID)",
                    "status": "\(status.map(String.init) ?? "-")", "error": "\(error)",
                    "final": "\(outcome == .gaveUp(status: status, error: error))",
                ])
        }
        return (outcome, answer)
    }

    /// Forgets that `server` is to be left alone (a moderator retries it).
    func wakeUp(_ server: String) {
        resting.withLock { _ = $0.removeValue(forKey: server) }
    }

    static func outcome(status: Int?, error: String?, attempts: Int) -> DeliveryOutcome {
        if let status, (200..<300).contains(status) { return .delivered(status: status) }
        let error = error ?? "answered \(status ?? 0)"
        if let status, final.contains(status) { return .gaveUp(status: status, error: error) }
        if attempts >= maxAttempts { return .gaveUp(status: status, error: error) }
        return .retry(at: Date().addingTimeInterval(backoff(after: attempts)), status: status, error: error)
    }
}
