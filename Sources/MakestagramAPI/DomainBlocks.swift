import Foundation

/// What a moderators' block of another server does.
public enum DomainBlockSeverity: String, Codable, Sendable, CaseIterable {
    /// Nothing is taken from the server or sent to it, and everything its people made here is removed: their posts,
    /// likes, comments and follows (counts stay exact).
    case suspend
    /// Its people's posts are seen only by those who follow them, as a private account's are.
    case limit
}

/// A server the moderators block (or limit), for everyone here. A block covers the server's subdomains too.
public struct DomainBlock: Codable, Sendable, Equatable {
    /// The host name (`example.social`), lowercased, without a port.
    public var domain: String
    public var severity: DomainBlockSeverity
    /// The moderator's reason, if they gave one.
    public var reason: String?
    public var createdAt: Date

    public init(domain: String, severity: DomainBlockSeverity, reason: String?, createdAt: Date) {
        self.domain = domain
        self.severity = severity
        self.reason = reason
        self.createdAt = createdAt
    }
}

/// The body of `PUT /api/v1/moderation/domain-blocks/{domain}`.
public struct DomainBlockRequest: Codable, Sendable {
    public var severity: DomainBlockSeverity
    /// Why, for the moderation log (at most ``Limits/moderationReasonLength`` characters); may be empty.
    public var reason: String?

    public init(severity: DomainBlockSeverity, reason: String? = nil) {
        self.severity = severity
        self.reason = reason
    }
}

/// The servers the moderators block: `GET /api/v1/moderation/domain-blocks`, and the answer of changing one.
public struct ServerBlocks: Codable, Sendable, Equatable {
    /// Most recently blocked first.
    public var blocks: [DomainBlock]

    public init(blocks: [DomainBlock]) { self.blocks = blocks }
}

/// The servers a user blocks for themselves: `GET /api/v1/me/domain-blocks`, and the answer of changing one.
public struct BlockedServers: Codable, Sendable, Equatable {
    /// In alphabetical order.
    public var domains: [String]

    public init(domains: [String]) { self.domains = domains }
}

/// Host names of other servers as blocks name them: lowercase letters, digits, dots and hyphens, in labels that
/// neither start nor end with a hyphen, with at least one dot. `https://Example.Social:443/path`, `@bob@example.social`
/// and `example.social.` all name `example.social`.
public enum DomainName {
    /// The longest host name DNS allows.
    public static let maxLength = 253

    /// The domain `text` names, or nil when it names none.
    public static func normalized(_ text: String) -> String? {
        var host = Substring(text.trimmingCharacters(in: .whitespaces)).lowercased()[...]
        if let scheme = host.range(of: "://") { host = host[scheme.upperBound...] }
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        if let end = host.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { host = host[..<end] }
        if let colon = host.firstIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy(\.isASCII), Int(host[host.index(after: colon)...]) != nil
            else { return nil }
            host = host[..<colon]
        }
        while host.hasSuffix(".") { host = host.dropLast() }
        guard !host.isEmpty, host.utf8.count <= maxLength, host.contains(".") else { return nil }
        for label in host.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.utf8.count <= 63, !label.hasPrefix("-"), !label.hasSuffix("-"),
                label.utf8.allSatisfy({
                    ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                        || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                        || $0 == UInt8(ascii: "-")
                })
            else { return nil }
        }
        return String(host)
    }

    /// The host of a remote username (`bob@example.social:8443` → `example.social`); nil for a local one.
    public static func host(ofUsername username: String) -> String? {
        guard let at = username.lastIndex(of: "@") else { return nil }
        var host = username[username.index(after: at)...]
        if let colon = host.firstIndex(of: ":") { host = host[..<colon] }
        return host.isEmpty ? nil : host.lowercased()
    }

    /// The domains a block of which covers `host`: the host itself and each parent with a dot in it
    /// (`a.b.example.social` → `a.b.example.social`, `b.example.social`, `example.social`). The host is taken as a
    /// block names it: lowercased, without a port or trailing dots (`Example.Social.:443` is `example.social`).
    public static func covering(_ host: String) -> [String] {
        var names: [String] = []
        var rest = Substring(host.lowercased())
        if let colon = rest.firstIndex(of: ":") { rest = rest[..<colon] }
        while rest.hasSuffix(".") { rest = rest.dropLast() }
        while rest.contains(".") {
            names.append(String(rest))
            rest = rest[rest.index(after: rest.firstIndex(of: ".")!)...]
        }
        return names
    }

    /// Whether a block of `domain` covers `host`.
    public static func covers(_ domain: String, host: String) -> Bool {
        covering(host).contains(domain)
    }
}

/// How deliveries to one other server go: `GET /api/v1/moderation/servers` (moderators, when the server federates).
public struct DeliveryServer: Codable, Sendable, Equatable {
    /// Host, and port when it has one.
    public var server: String
    public var lastDeliveredAt: Date?
    public var lastFailedAt: Date?
    /// Since when it fails without answering in between; absent while it answers.
    public var failingSince: Date?
    /// Failures in a row.
    public var failures: Int
    public var lastError: String?
    /// Deliveries waiting for it, and when the next is due.
    public var pending: Int
    public var nextAttemptAt: Date?
    /// Whether it failed for so long that it is no longer tried until it sends something (or a moderator retries).
    public var givenUp: Bool
    /// The moderators' block of it, if any.
    public var blocked: DomainBlockSeverity?

    public init(
        server: String, lastDeliveredAt: Date? = nil, lastFailedAt: Date? = nil, failingSince: Date? = nil,
        failures: Int = 0, lastError: String? = nil, pending: Int = 0, nextAttemptAt: Date? = nil,
        givenUp: Bool = false,
        blocked: DomainBlockSeverity? = nil
    ) {
        self.server = server
        self.lastDeliveredAt = lastDeliveredAt
        self.lastFailedAt = lastFailedAt
        self.failingSince = failingSince
        self.failures = failures
        self.lastError = lastError
        self.pending = pending
        self.nextAttemptAt = nextAttemptAt
        self.givenUp = givenUp
        self.blocked = blocked
    }
}

/// `GET /api/v1/moderation/servers`: the servers failing longest first, then the others.
public struct DeliveryServers: Codable, Sendable, Equatable {
    public var servers: [DeliveryServer]

    public init(servers: [DeliveryServer]) { self.servers = servers }
}
