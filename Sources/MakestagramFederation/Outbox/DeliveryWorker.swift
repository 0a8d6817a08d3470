import Foundation
import Logging
import MakestagramAPI
import MakestagramCore
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
    private let rings = Doorbell()
    /// The endings ``sendDue()`` waits on while it runs: rung when more deliveries are queued, so that while some
    /// are in flight the queue is looked at again at once, not at the next tick.
    private let ringing = Mutex<Endings?>(nil)
    /// The servers whose answer was written to the store lately, with when (``worthWriting(_:)``).
    private let written = Mutex<[String: ContinuousClock.Instant]>([:])
    /// Deliveries the consumer queued and took for this worker (``hand(_:)``), with when, oldest first.
    private let handed = Mutex<[(delivery: QueuedDelivery, at: ContinuousClock.Instant)]>([])
    var logger: Logger { federation.logger }

    /// Answers after which trying again cannot help.
    static var final: Set<Int> { [400, 401, 403, 404, 410] }
    /// The most attempts: the waits between them (30 s doubling, at most 12 h) add up to about two days.
    static var maxAttempts: Int { 15 }

    init(federation: Federation<S>, concurrency: Int = 32, lease: Duration = .seconds(45)) {
        self.federation = federation
        self.concurrency = concurrency
        self.lease = lease
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
        rings.ring()
        ringing.withLock { $0 }?.ring()
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
        let ticker = Task { [rings] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                rings.ring()
            }
        }
        defer { ticker.cancel() }
        var lastPurge = Date.distantPast
        var lastHealth = Date.distantPast
        await rings.answer {
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
    ///
    /// Deliveries are signed here and sent on the event loops, which collect how they ended (``Endings``): the
    /// worker is woken when enough have ended to refill or record, not once per delivery.
    func sendDue() async throws {
        let store = federation.store
        var senders: [Int64: (user: UserSummary, leaving: Bool)] = [:]
        let endings = Endings()
        ringing.withLock { $0 = endings }
        var ticker: Task<Void, Never>?
        defer {
            ringing.withLock { $0 = nil }
            ticker?.cancel()
        }
        var inFlight = 0
        // The queue had no more due when last looked at: it is looked at again when the worker is rung (more were
        // queued) or a second has passed (retries coming of age), not only as slots free.
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
        let refillAt = max(1, concurrency / 4)
        let recordAt = max(1, concurrency / 2)
        while true {
            let free = concurrency - inFlight
            // Once cancelled (the server stops), nothing more is taken: those under way end, cancelled too.
            if !exhausted && !Task.isCancelled && (inFlight == 0 || free >= refillAt) {
                endings.clearRing()
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
                inFlight += due.count
                await start(due, senders: senders, endings: endings)
            }
            guard inFlight > 0 else { break }
            if exhausted && ticker == nil {
                ticker = Task {
                    try? await Task.sleep(for: .seconds(1))
                    endings.ring()
                }
            }
            // Woken when the next thing to do is due: slots to refill, outcomes to record, or all ended.
            var want = min(inFlight, recordAt - finished.count)
            if !exhausted { want = min(want, refillAt - (concurrency - inFlight)) }
            let (ended, rung) = await endings.next(atLeast: max(1, want), orRung: exhausted)
            inFlight -= ended.count
            for ending in ended {
                finished.append((ending.id, ending.outcome))
                if let server = ending.server { servers.append(server) }
            }
            if rung {
                exhausted = false
                ticker?.cancel()
                ticker = nil
            }
            if inFlight == 0 || finished.count >= recordAt {
                await record()
                exhausted = false
            }
        }
        await record()
    }

    /// Starts `due`: signed on as many threads as there are cores, each handing what it signed to an event loop
    /// together. Each delivery's end arrives in `endings`.
    private func start(
        _ due: [QueuedDelivery], senders: [Int64: (user: UserSummary, leaving: Bool)], endings: Endings
    ) async {
        let parts = max(1, min(due.count, ProcessInfo.processInfo.activeProcessorCount))
        let size = max(1, (due.count + parts - 1) / parts)
        await withTaskGroup(of: Void.self) { group in
            for first in stride(from: 0, to: due.count, by: size) {
                let part = due[first..<min(due.count, first + size)]
                group.addTask {
                    var ready: [(queued: QueuedDelivery, server: String, prepared: PeerClient.PreparedDelivery)] = []
                    for queued in part {
                        if let prepared = await self.prepare(queued, senders: senders, endings: endings) {
                            ready.append(prepared)
                        }
                    }
                    let exchanges = self.federation.peers.start(ready.map(\.prepared))
                    for ((queued, server, _), exchange) in zip(ready, exchanges) {
                        endings.started(queued.id, cancel: exchange.cancel)
                        exchange.status.whenComplete { result in
                            endings.stopped(queued.id)
                            switch result {
                            case .success(let status):
                                self.end(
                                    queued, Self.outcome(status: status, error: nil, attempts: queued.attempts),
                                    status >= 500 || status == 429
                                        ? ServerResult(server: server, answered: false, error: "answered \(status)")
                                        : ServerResult(server: server, answered: true), server: server,
                                    endings: endings)
                            case .failure(let error):
                                self.failed(queued, error, server: server, endings: endings)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Reports how `queued` ended to `endings`, noting how its server answered and logging a failure.
    private func end(
        _ queued: QueuedDelivery, _ outcome: DeliveryOutcome, _ answer: ServerResult?, server: String?,
        endings: Endings
    ) {
        if let server { noteOutcome(outcome, server: server) }
        switch outcome {
        case .delivered: break
        case .retry(_, let status, let error), .gaveUp(let status, let error):
            logger.info(
                "delivery failed",
                metadata: [
                    "inbox": "\(queued.delivery.inbox)", "activity": "\(queued.delivery.activityID)",
                    "status": "\(status.map(String.init) ?? "-")", "error": "\(error)",
                    "final": "\(outcome == .gaveUp(status: status, error: error))",
                ])
        }
        endings.add((queued.id, outcome, answer))
    }

    /// Reports that `queued` failed with `error`: for good if the address may not be reached, else to be tried again.
    private func failed(_ queued: QueuedDelivery, _ error: Error, server: String, endings: Endings) {
        if let failure = error as? PeerClient.Failure, case .refused = failure {
            end(queued, .gaveUp(status: nil, error: failure.description), nil, server: server, endings: endings)
            return
        }
        let description = (error as? PeerClient.Failure)?.description ?? "\(error)"
        end(
            queued, Self.outcome(status: nil, error: description, attempts: queued.attempts),
            ServerResult(server: server, answered: false, error: description), server: server, endings: endings)
    }

    /// Checks whether `queued` may be sent now and signs it: answers it ready to start, with its server, or nil
    /// when it ended here (reported to `endings`).
    private func prepare(
        _ queued: QueuedDelivery, senders: [Int64: (user: UserSummary, leaving: Bool)], endings: Endings
    ) async -> (queued: QueuedDelivery, server: String, prepared: PeerClient.PreparedDelivery)? {
        let delivery = queued.delivery
        guard let inbox = URL(string: delivery.inbox) else {
            end(
                queued, .gaveUp(status: nil, error: PeerClient.Failure.refused(.badHost).description), nil,
                server: nil, endings: endings)
            return nil
        }
        let server = Self.server(of: inbox)
        if federation.health.isGivenUp(server) {
            endings.add(
                (
                    queued.id,
                    .gaveUp(status: nil, error: "its server failed for too long; tried again once it sends something"),
                    nil
                ))
            return nil
        }
        if let until = resting.withLock({ $0[server]?.until }), until > Date() {
            // Its server is left alone: back to the queue for then, without a connection.
            logger.debug("delivery put off: its server is failing", metadata: ["inbox": "\(delivery.inbox)"])
            endings.add(
                (
                    queued.id,
                    queued.attempts >= Self.maxAttempts
                        ? .gaveUp(status: nil, error: "its server kept failing")
                        : .retry(
                            at: until.addingTimeInterval(Double.random(in: 0...5)), status: nil,
                            error: "its server is failing"),
                    nil
                ))
            return nil
        }
        let sender = delivery.sender.flatMap { senders[$0] }
        if delivery.sender != nil && sender == nil {
            end(queued, .gaveUp(status: nil, error: "the sender is gone"), nil, server: server, endings: endings)
            return nil
        }
        if let sender, sender.leaving, delivery.activityID != federation.farewellID(of: sender.user.username) {
            // Of an account being deleted only its farewell is sent: nothing may arrive after it.
            end(queued, .gaveUp(status: nil, error: "the sender is gone"), nil, server: server, endings: endings)
            return nil
        }
        do {
            return (
                queued, server,
                try await federation.peers.prepareDelivery(
                    delivery.body, to: inbox, signer: federation.signer(for: sender?.user))
            )
        } catch {
            failed(queued, error, server: server, endings: endings)
            return nil
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

/// How deliveries under way ended, gathered from the event loops for the worker, which waits until enough have ended
/// to act on (``next(atLeast:orRung:)``) or it is rung. Cancelling the waiting task cancels the exchanges under way;
/// they end (as failures, tried again) and are answered as any other.
final class Endings: Sendable {
    typealias Ending = (id: Int64, outcome: DeliveryOutcome, server: ServerResult?)

    private struct State {
        var ended: [Ending] = []
        var rung = false
        var waiter: CheckedContinuation<([Ending], Bool), Never>?
        var want = 1
        var ringable = false
        var running: [Int64: @Sendable () -> Void] = [:]
    }
    private let state = Mutex(State())

    func started(_ id: Int64, cancel: @escaping @Sendable () -> Void) {
        state.withLock { $0.running[id] = cancel }
    }

    func stopped(_ id: Int64) {
        state.withLock { _ = $0.running.removeValue(forKey: id) }
    }

    func add(_ ending: Ending) {
        let ready = state.withLock { state -> (CheckedContinuation<([Ending], Bool), Never>, [Ending])? in
            state.ended.append(ending)
            guard let waiter = state.waiter, state.ended.count >= state.want else { return nil }
            state.waiter = nil
            defer { state.ended = [] }
            return (waiter, state.ended)
        }
        if let (waiter, ended) = ready { waiter.resume(returning: (ended, false)) }
    }

    /// Wakes a wait that may be rung; remembered until the next ``clearRing()`` otherwise.
    func ring() {
        let waiter = state.withLock { state -> (CheckedContinuation<([Ending], Bool), Never>, [Ending])? in
            state.rung = true
            guard state.ringable, let waiter = state.waiter else { return nil }
            state.waiter = nil
            state.rung = false
            defer { state.ended = [] }
            return (waiter, state.ended)
        }
        if let (waiter, ended) = waiter { waiter.resume(returning: (ended, true)) }
    }

    /// Forgets rings so far: the queue is being looked at.
    func clearRing() {
        state.withLock { $0.rung = false }
    }

    /// Answers once at least `want` deliveries have ended (with every one ended so far), or, if `orRung`, once
    /// rung (with those ended so far, maybe none).
    func next(atLeast want: Int, orRung: Bool) async -> (ended: [Ending], rung: Bool) {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<([Ending], Bool), Never>) in
                let ready = state.withLock { state -> ([Ending], Bool)? in
                    let rung = orRung && state.rung
                    if state.ended.count >= want || rung {
                        if rung { state.rung = false }
                        defer { state.ended = [] }
                        return (state.ended, rung)
                    }
                    state.waiter = waiter
                    state.want = want
                    state.ringable = orRung
                    return nil
                }
                if let ready { waiter.resume(returning: ready) }
            }
        } onCancel: {
            for cancel in state.withLock({ Array($0.running.values) }) { cancel() }
        }
    }
}
