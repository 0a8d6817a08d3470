import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which servers may be reached: by default only HTTPS origins whose names resolve to public addresses, so that a
/// remote document naming `http://127.0.0.1/…` or a name that resolves into a private network cannot make this server
/// fetch from or post to it. Tests and closed networks allow private peers (`--allow-private-peers`): then plain
/// HTTP and every address are allowed.
///
/// The check answers the address to connect to, and ``PeerClient`` connects to that address and no other (the name
/// is not resolved again), so that a name whose DNS answer changes between the check and the connection cannot lead
/// it into a private network.
public struct PeerPolicy: Sendable {
    public var allowPrivatePeers: Bool
    /// Whether only https URLs are reached (unless private peers are allowed).
    var requiresHTTPS = true
    /// The addresses a host name resolves to, as bytes (4 for IPv4, 16 for IPv6).
    var resolver: @Sendable (String) -> [[UInt8]] = { PeerPolicy.resolve($0) }
    /// Whether an address may be reached (unless private peers are allowed).
    var permits: @Sendable ([UInt8]) -> Bool = { PeerPolicy.isPublic($0) }

    public init(allowPrivatePeers: Bool) {
        self.allowPrivatePeers = allowPrivatePeers
    }

    /// A policy with its own resolver and idea of which addresses are public, over http too (tests).
    package init(resolver: @escaping @Sendable (String) -> [[UInt8]], permits: @escaping @Sendable ([UInt8]) -> Bool) {
        self.allowPrivatePeers = false
        self.requiresHTTPS = false
        self.resolver = resolver
        self.permits = permits
    }

    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case notHTTP
        case notHTTPS
        case badHost
        case unresolvable(String)
        case privateAddress(String)
        /// The moderators here suspended the server.
        case suspended(String)

        public var description: String {
            switch self {
            case .notHTTP: "only http and https URLs are fetched"
            case .notHTTPS: "only https URLs are fetched"
            case .badHost: "the URL has no usable host"
            case .unresolvable(let host): "\(host) does not resolve"
            case .privateAddress(let host): "\(host) is a private address"
            case .suspended(let host): "the moderators here suspended \(host)"
            }
        }
    }

    /// Checks `url` before any connection: its scheme, and every address its host resolves to. Answers the address
    /// to connect to (one of those checked), or nil when private peers are allowed (any address will do).
    @discardableResult
    public func check(_ url: URL) throws(Refusal) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else { throw .notHTTP }
        if allowPrivatePeers { return nil }
        guard scheme == "https" || !requiresHTTPS else { throw .notHTTPS }
        guard var host = url.host(percentEncoded: false)?.lowercased(), !host.isEmpty, !host.hasSuffix("."),
            url.user == nil
        else { throw .badHost }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let addresses = resolver(host)
        guard let first = addresses.first else { throw .unresolvable(host) }
        if addresses.contains(where: { !permits($0) }) { throw .privateAddress(host) }
        guard let text = Self.text(of: first) else { throw .unresolvable(host) }
        return text
    }

    /// An address as text (`192.0.2.1`, `2001:db8::1`).
    static func text(of address: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.count == 4 ? AF_INET : AF_INET6
        let written = address.withUnsafeBytes { bytes in
            inet_ntop(family, bytes.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The addresses `host` resolves to, as bytes (4 for IPv4, 16 for IPv6).
    static func resolve(_ host: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [[UInt8]] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let address = info.pointee.ai_addr {
                if info.pointee.ai_family == AF_INET {
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        addresses.append(withUnsafeBytes(of: v4.pointee.sin_addr) { Array($0) })
                    }
                } else if info.pointee.ai_family == AF_INET6 {
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        addresses.append(withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) })
                    }
                }
            }
            cursor = info.pointee.ai_next
        }
        return addresses
    }

    /// Whether an address is on the public internet: not loopback, private, link-local, shared, multicast, reserved
    /// or unspecified, in IPv4 or IPv6 (IPv4-mapped and -translated addresses are judged as the IPv4 they carry).
    public static func isPublic(_ bytes: [UInt8]) -> Bool {
        if bytes.count == 4 {
            let (a, b) = (bytes[0], bytes[1])
            switch a {
            case 0, 10, 127: return false
            case 100 where (64...127).contains(b): return false
            case 169 where b == 254: return false
            case 172 where (16...31).contains(b): return false
            case 192 where b == 168: return false
            case 192 where b == 0 && bytes[2] == 0: return false
            case 198 where b == 18 || b == 19: return false
            case 224...255: return false
            default: return true
            }
        }
        guard bytes.count == 16 else { return false }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return isPublic(Array(bytes[12..<16]))
        }
        if bytes[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return isPublic(Array(bytes[12..<16])) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) { return false }
        if bytes[0] & 0xfe == 0xfc { return false }
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return false }
        if bytes[0] == 0xff { return false }
        if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0d && bytes[3] == 0xb8 { return false }
        return true
    }
}
