/// How often one client may do one thing: `count` times per `period`, in bursts of up to `count`.
public struct RateLimit: Sendable, Equatable, CustomStringConvertible {
    public var count: Int
    public var period: Duration

    public init(_ count: Int, per period: Duration) {
        self.count = max(1, count)
        self.period = period
    }

    /// Reads `COUNT/PERIOD`, where PERIOD is `s`, `m`, `h` or `d`, optionally preceded by a number (`20/h`,
    /// `5/10s`).
    public init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let count = Int(parts[0]), count > 0, let unit = parts[1].last else { return nil }
        let amount = parts[1].dropLast()
        guard let multiple = amount.isEmpty ? 1 : Int(amount), multiple > 0 else { return nil }
        let seconds: Int
        switch unit {
        case "s": seconds = 1
        case "m": seconds = 60
        case "h": seconds = 3600
        case "d": seconds = 86400
        default: return nil
        }
        self.init(count, per: .seconds(seconds * multiple))
    }

    public var description: String {
        let seconds = period.components.seconds
        for (unit, size) in [("d", 86400), ("h", 3600), ("m", 60)] where seconds % Int64(size) == 0 {
            let multiple = seconds / Int64(size)
            return "\(count)/\(multiple == 1 ? "" : String(multiple))\(unit)"
        }
        return "\(count)/\(seconds)s"
    }
}

/// A token bucket owned by one client (a live connection's reading loop), which needs no lock.
public struct TokenBucket: Sendable {
    public let limit: RateLimit
    private var tokens: Double
    private var updated: ContinuousClock.Instant

    public init(_ limit: RateLimit, now: ContinuousClock.Instant = .now) {
        self.limit = limit
        self.tokens = Double(limit.count)
        self.updated = now
    }

    /// Takes `cost` tokens; nil when allowed, else how long until they are back (nothing is taken then).
    public mutating func take(_ cost: Int = 1, now: ContinuousClock.Instant = .now) -> Duration? {
        let rate = Double(limit.count) / limit.period.seconds
        tokens = min(Double(limit.count), tokens + (now - updated).seconds * rate)
        updated = now
        let needed = Double(min(cost, limit.count))
        guard tokens >= needed else { return .seconds((needed - tokens) / rate) }
        tokens -= needed
        return nil
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }

    /// Whole seconds, rounded up, at least 1: for `Retry-After`.
    public var retryAfterSeconds: Int {
        max(1, Int(seconds.rounded(.up)))
    }
}
