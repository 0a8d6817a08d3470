import Synchronization

/// Slows password guessing without locking anybody out: failed log-ins are counted per (account, client address)
/// and per address, and each count past its allowance makes the next attempt from there wait twice as long.
///
/// The owner of an account logs in from their own address however often others fail against it; an address that
/// guesses one password across many accounts, or many passwords against one, soon waits minutes between tries.
/// An attempt in progress counts as a failure until it is decided, so a burst of simultaneous guesses gets no more
/// tries than a sequence. A success clears the (account, address) count, not the address's.
package final class LoginThrottle: Sendable {

    private struct Entry {
        var failures = 0
        var pending = 0
        var last: ContinuousClock.Instant

        func wait(allowed: Int, firstDelay: Duration, maxDelay: Duration, now: ContinuousClock.Instant) -> Duration? {
            let over = failures + pending - allowed
            guard over >= 0 else { return nil }
            let delay = min(maxDelay, firstDelay * (1 << min(over, 30)))
            let ready = last + delay
            return ready > now ? ready - now : nil
        }
    }

    private struct Key: Hashable {
        let username: String
        let address: String
    }

    private struct State {
        var pairs: [Key: Entry] = [:]
        var addresses: [String: Entry] = [:]
    }

    package let policy: LoginThrottlePolicy
    private let state = Mutex(State())

    package init(policy: LoginThrottlePolicy = LoginThrottlePolicy()) {
        self.policy = policy
    }

    /// Starts an attempt for `username` from `address`: nil when it may go ahead (then call ``finish``), or how long
    /// to wait.
    package func begin(username: String, address: String, now: ContinuousClock.Instant = .now) -> Duration? {
        state.withLock { state in
            if state.pairs.count + state.addresses.count > 200_000 { forgetOld(&state, now: now) }
            let key = Key(username: username, address: address)
            var pair = fresh(state.pairs[key], now: now)
            var place = fresh(state.addresses[address], now: now)
            let waits = [
                pair.wait(
                    allowed: policy.accountFailures, firstDelay: policy.firstDelay, maxDelay: policy.maxAccountDelay,
                    now: now),
                place.wait(
                    allowed: policy.addressFailures, firstDelay: policy.firstDelay, maxDelay: policy.maxAddressDelay,
                    now: now),
            ].compactMap { $0 }
            if let longest = waits.max() { return longest }
            pair.pending += 1
            place.pending += 1
            state.pairs[key] = pair
            state.addresses[address] = place
            return nil
        }
    }

    /// Ends an attempt begun with ``begin``.
    package func finish(username: String, address: String, succeeded: Bool, now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            let key = Key(username: username, address: address)
            if var pair = state.pairs[key] {
                pair.pending = max(0, pair.pending - 1)
                if succeeded {
                    pair.failures = 0
                } else {
                    pair.failures += 1
                    pair.last = now
                }
                state.pairs[key] = pair.failures == 0 && pair.pending == 0 ? nil : pair
            }
            if var place = state.addresses[address] {
                place.pending = max(0, place.pending - 1)
                if !succeeded {
                    place.failures += 1
                    place.last = now
                }
                state.addresses[address] = place.failures == 0 && place.pending == 0 ? nil : place
            }
        }
    }

    /// The entry, or a new one if there is none or its failures are long past.
    private func fresh(_ entry: Entry?, now: ContinuousClock.Instant) -> Entry {
        guard let entry, entry.pending > 0 || now - entry.last < horizon else { return Entry(last: now) }
        return entry
    }

    private var horizon: Duration { max(policy.memory, policy.maxAddressDelay, policy.maxAccountDelay) }

    private func forgetOld(_ state: inout State, now: ContinuousClock.Instant) {
        state.pairs = state.pairs.filter { $0.value.pending > 0 || now - $0.value.last < horizon }
        state.addresses = state.addresses.filter { $0.value.pending > 0 || now - $0.value.last < horizon }
    }
}

/// Failures allowed per (account, address) and per address before delays start, and the longest delays.
public struct LoginThrottlePolicy: Sendable, Equatable {
    public var accountFailures = 5
    public var addressFailures = 20
    public var maxAccountDelay: Duration = .seconds(15 * 60)
    public var maxAddressDelay: Duration = .seconds(60 * 60)
    /// The wait after the allowed failures are used up; it doubles with each failure after.
    public var firstDelay: Duration = .seconds(1)
    /// A count is forgotten this long after its last failure (or its delay, if longer).
    public var memory: Duration = .seconds(60 * 60)

    public init() {}
}
