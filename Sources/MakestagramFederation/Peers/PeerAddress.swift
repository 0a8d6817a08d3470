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
public struct PeerPolicy: Sendable {
    public var allowPrivatePeers: Bool

    public init(allowPrivatePeers: Bool) {
        self.allowPrivatePeers = allowPrivatePeers
    }

    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case notHTTP
        case notHTTPS
        case badHost
        case unresolvable(String)
        case privateAddress(String)

        public var description: String {
            switch self {
            case .notHTTP: "only http and https URLs are fetched"
            case .notHTTPS: "only https URLs are fetched"
            case .badHost: "the URL has no usable host"
            case .unresolvable(let host): "\(host) does not resolve"
            case .privateAddress(let host): "\(host) is a private address"
            }
        }
    }

    /// Checks `url` before any connection: its scheme, and every address its host resolves to.
    public func check(_ url: URL) throws(Refusal) {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else { throw .notHTTP }
        if allowPrivatePeers { return }
        guard scheme == "https" else { throw .notHTTPS }
        guard let host = url.host(percentEncoded: false)?.lowercased(), !host.isEmpty, !host.hasSuffix("."),
            url.user == nil
        else { throw .badHost }
        let addresses = Self.resolve(host)
        guard !addresses.isEmpty else { throw .unresolvable(host) }
        if addresses.contains(where: { !Self.isPublic($0) }) { throw .privateAddress(host) }
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
