import Foundation
import Synchronization

/// Slows down password guessing: after `maxFailures` failed log-ins for one username within `window`,
/// further attempts for it are refused until the window has passed. A successful log-in clears the count.
final class LoginThrottle: Sendable {
    struct Entry {
        var failures: Int
        var windowStart: ContinuousClock.Instant
    }

    let maxFailures: Int
    let window: Duration
    private let entries = Mutex<[String: Entry]>([:])

    init(maxFailures: Int = 5, window: Duration = .seconds(300)) {
        self.maxFailures = maxFailures
        self.window = window
    }

    /// Seconds to wait before `username` may try again, or nil when it may try now.
    func retryAfter(_ username: String, now: ContinuousClock.Instant = .now) -> Int? {
        entries.withLock { entries in
            guard let entry = entries[username] else { return nil }
            let elapsed = now - entry.windowStart
            if elapsed >= window {
                entries[username] = nil
                return nil
            }
            guard entry.failures >= maxFailures else { return nil }
            return max(1, Int((window - elapsed).components.seconds))
        }
    }

    /// Records a failed attempt.
    func recordFailure(_ username: String, now: ContinuousClock.Instant = .now) {
        entries.withLock { entries in
            if entries.count > 100_000 {
                entries = entries.filter { now - $0.value.windowStart < window }
            }
            var entry = entries[username] ?? Entry(failures: 0, windowStart: now)
            if now - entry.windowStart >= window { entry = Entry(failures: 0, windowStart: now) }
            entry.failures += 1
            entries[username] = entry
        }
    }

    /// Clears the failures of a user who logged in.
    func recordSuccess(_ username: String) {
        entries.withLock { _ = $0.removeValue(forKey: username) }
    }
}
