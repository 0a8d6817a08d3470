import Foundation
import HTTPTypes
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The reverse proxies whose `X-Forwarded-For` the server believes: addresses or CIDR ranges (`127.0.0.1`,
/// `10.0.0.0/8`, `::1`, `fd00::/8`).
///
/// Without a trusted proxy the client is the socket's peer, and `X-Forwarded-For` is ignored: anyone can write that
/// header, so believing it would let a client pick its own address and escape every per-address limit.
public struct TrustedProxies: Sendable, Equatable {
    struct Range: Sendable, Equatable {
        let bytes: [UInt8]
        let prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var bits = prefix
            for (a, b) in zip(address, bytes) where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                guard a & mask == b & mask else { return false }
                bits -= 8
            }
            return true
        }
    }

    private(set) var ranges: [Range] = []

    public init() {}

    /// The ranges in `list` (comma-separated); nil if one is not an address or range.
    public init?(parsing list: String) {
        for item in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            let parts = item.split(separator: "/", maxSplits: 1)
            guard let bytes = Self.bytes(String(parts[0])) else { return nil }
            let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let prefix, (0...bytes.count * 8).contains(prefix) else { return nil }
            ranges.append(Range(bytes: bytes, prefix: prefix))
        }
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// The bytes of an IPv4 or IPv6 address in text (an IPv4-mapped IPv6 address counts as IPv4).
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// Who sent a request that reached the server from `peer`: the peer itself, or, when the peer is a trusted
    /// proxy, the nearest address in `X-Forwarded-For` that is not one (read from the right, where each proxy
    /// appends the address it received the request from).
    func client(peer: SocketAddress?, headers: HTTPFields) -> String {
        guard let peerAddress = peer?.ipAddress else { return "unknown" }
        guard !ranges.isEmpty, contains(peerAddress) else { return Self.canonical(peerAddress) }
        let forwarded = headers[values: .xForwardedFor].flatMap { $0.split(separator: ",") }
        for hop in forwarded.reversed() {
            let address = hop.trimmingCharacters(in: .whitespaces)
            guard Self.bytes(address) != nil else { break }
            if !contains(address) { return Self.canonical(address) }
        }
        return Self.canonical(peerAddress)
    }

    /// Whether the request reached the server over HTTPS: from a trusted proxy that says so in `X-Forwarded-Proto`.
    func isHTTPS(peer: SocketAddress?, headers: HTTPFields) -> Bool {
        guard let peerAddress = peer?.ipAddress, !ranges.isEmpty, contains(peerAddress),
            let proto = headers[HTTPField.Name("X-Forwarded-Proto")!]
        else { return false }
        return proto.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    /// One spelling per address (IPv4-mapped IPv6 as IPv4), so that a client cannot get a fresh limit by writing
    /// its address differently.
    static func canonical(_ address: String) -> String {
        guard let bytes = bytes(address) else { return address }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
