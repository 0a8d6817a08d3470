import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import _CryptoExtras

/// Talks to other servers: fetches their documents and delivers activities, every request signed for the actor it
/// is made for (``HTTPSignature``), every URL checked by the ``PeerPolicy`` first (and again on each redirect, at
/// most three), with a size limit on what is read and a time limit on the whole exchange. A request connects to the
/// address the policy checked, never to what the name resolves to a moment later: one client per host, pinned to
/// that address (``Pinned``).
public final class PeerClient: Sendable {
    /// Who signs a request: the key's id and the key.
    public typealias Signer = @Sendable () async throws -> (keyID: String, key: SigningKey)

    public enum Failure: Error, CustomStringConvertible {
        case refused(PeerPolicy.Refusal)
        case status(Int)
        case tooLarge
        case notJSON
        case tooManyRedirects
        case timedOut

        public var description: String {
            switch self {
            case .refused(let refusal): refusal.description
            case .status(let code): "the peer answered \(code)"
            case .tooLarge: "the peer's answer is too large"
            case .notJSON: "the peer's answer is not a JSON object"
            case .tooManyRedirects: "more than three redirects"
            case .timedOut: "the peer took longer than the time limit"
            }
        }
    }

    public let policy: PeerPolicy
    /// For private peers: any address.
    private let client: HTTPClient
    private let configuration: HTTPClient.Configuration
    /// Per host: the address checked, and a client that connects only there.
    private let pinned = Mutex<[String: Pinned]>([:])
    private struct Pinned {
        var address: String
        var client: HTTPClient
        var used: ContinuousClock.Instant
        var checked: ContinuousClock.Instant
    }
    /// The most hosts with a client of their own; the longest unused is shut down past it.
    static var maxPinnedHosts: Int { 256 }
    /// The most bytes read of a document.
    public var maxDocumentBytes: Int { 1 << 20 }
    /// How long one exchange may take.
    public let timeout: TimeAmount
    /// Whether a host is on a server the moderators suspended: nothing is fetched from it or sent to it.
    let isSuspended: @Sendable (String) -> Bool

    public init(
        policy: PeerPolicy, timeout: TimeAmount = .seconds(10),
        isSuspended: @escaping @Sendable (String) -> Bool = {
            _ in false
        }
    ) {
        self.policy = policy
        self.timeout = timeout
        self.isSuspended = isSuspended
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: timeout))
        configuration.decompression = .disabled
        self.configuration = configuration
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func shutdown() async throws {
        let clients = pinned.withLock { pinned in
            defer { pinned = [:] }
            return pinned.values.map(\.client)
        }
        for client in clients { try? await client.shutdown() }
        try await client.shutdown()
    }

    /// How long a host's checked address is used before its name is resolved and checked again.
    static var recheckAfter: Duration { .seconds(60) }

    /// The client for `url`, after the policy's check: one that connects only to the address checked. A host
    /// checked less than ``recheckAfter`` ago is not resolved again; resolving (which blocks) runs on NIO's thread
    /// pool, so that a slow name server holds up nobody else.
    private func client(for url: URL) async throws -> HTTPClient {
        if let host = url.host(percentEncoded: false), isSuspended(host) { throw Failure.refused(.suspended(host)) }
        let now = ContinuousClock.now
        let scheme = url.scheme?.lowercased()
        if !policy.allowPrivatePeers, scheme == "https" || (scheme == "http" && !policy.requiresHTTPS), url.user == nil,
            let host = url.host(percentEncoded: false)?.lowercased(),
            let recent = pinned.withLock({ pinned -> HTTPClient? in
                guard var known = pinned[host], now - known.checked < Self.recheckAfter else { return nil }
                known.used = now
                pinned[host] = known
                return known.client
            })
        {
            return recent
        }
        let policy = self.policy
        if policy.allowPrivatePeers {
            // Nothing to resolve: any address may be reached, so the check (of the scheme) is done here.
            do { _ = try policy.check(url) } catch { throw Failure.refused(error) }
            return client
        }
        let address: String?
        do {
            address = try await NIOThreadPool.singleton.runIfActive { try policy.check(url) }
        } catch let refusal as PeerPolicy.Refusal {
            throw Failure.refused(refusal)
        }
        guard let address, let host = url.host(percentEncoded: false)?.lowercased() else { return client }
        var retired: [HTTPClient] = []
        let chosen = pinned.withLock { pinned -> HTTPClient in
            if var known = pinned[host], known.address == address {
                known.used = now
                known.checked = now
                pinned[host] = known
                return known.client
            }
            var configuration = self.configuration
            configuration.dnsOverride = [host: address]
            let fresh = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            if let old = pinned.updateValue(
                Pinned(address: address, client: fresh, used: now, checked: now), forKey: host)
            {
                retired.append(old.client)
            }
            if pinned.count > Self.maxPinnedHosts, let oldest = pinned.min(by: { $0.value.used < $1.value.used }) {
                retired.append(oldest.value.client)
                pinned[oldest.key] = nil
            }
            return fresh
        }
        for old in retired { old.shutdown { _ in } }
        return chosen
    }

    /// Fetches the ActivityStreams document at `url`, signed by `signer`.
    public func fetchDocument(_ url: URL, signer: @escaping Signer) async throws -> [String: Any] {
        try Self.object(
            await get(
                url,
                accept:
                    "application/activity+json, application/ld+json; profile=\"https://www.w3.org/ns/activitystreams\"",
                maxBytes: maxDocumentBytes, signer: signer))
    }

    /// Fetches a JSON document that is not ActivityStreams (WebFinger), unsigned.
    public func fetchJSON(_ url: URL) async throws -> [String: Any] {
        try Self.object(
            await get(url, accept: "application/jrd+json, application/json", maxBytes: maxDocumentBytes, signer: nil))
    }

    /// Fetches a photo at `url`: at most `maxBytes`, unsigned (media is public where it is served).
    public func fetchMedia(_ url: URL, maxBytes: Int) async throws -> Data {
        try await get(url, accept: "image/*", maxBytes: maxBytes, signer: nil)
    }

    /// GETs `url` (signed by `signer`, if given), following at most three redirects, each checked as the first
    /// address was; answers at most `maxBytes` of a 200's body.
    private func get(_ url: URL, accept: String, maxBytes: Int, signer: Signer?) async throws -> Data {
        var url = url
        for _ in 0...3 {
            let client = try await client(for: url)
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = .GET
            request.headers.add(name: "Accept", value: accept)
            if let signer { try await sign(&request, url: url, body: nil, signer: signer) }
            let deadline = NIODeadline.now() + timeout
            let response = try await client.execute(request, deadline: deadline)
            if (300..<400).contains(Int(response.status.code)), let location = response.headers.first(name: "Location"),
                let next = URL(string: location, relativeTo: url)?.absoluteURL
            {
                url = next
                continue
            }
            guard response.status == .ok else { throw Failure.status(Int(response.status.code)) }
            if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
                throw Failure.tooLarge
            }
            do {
                return try await Self.by(deadline) {
                    Data(try await response.body.collect(upTo: maxBytes).readableBytesView)
                }
            } catch is NIOTooManyBytesError {
                throw Failure.tooLarge
            }
        }
        throw Failure.tooManyRedirects
    }

    private static func object(_ data: Data) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure.notJSON
        }
        return object
    }

    /// Posts `body` (an activity) to `inbox`, signed by `signer`; answers the status.
    public func deliver(_ body: Data, to inbox: URL, signer: Signer) async throws -> Int {
        let client = try await client(for: inbox)
        var request = HTTPClientRequest(url: inbox.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/activity+json")
        try await sign(&request, url: inbox, body: body, signer: signer)
        request.body = .bytes(ByteBuffer(bytes: body))
        let deadline = NIODeadline.now() + timeout
        let response = try await client.execute(request, deadline: deadline)
        if response.headers.first(name: "content-length") == "0" {
            // Nothing to wait for (most inboxes answer 202 with no body): read at once, without a race.
            _ = try? await response.body.collect(upTo: 64 * 1024)
        } else {
            _ = try? await Self.by(deadline) { try await response.body.collect(upTo: 64 * 1024) }
        }
        return Int(response.status.code)
    }

    /// `work` (reading a body), cut off at `deadline`: AsyncHTTPClient's deadline ends with the answer's head, and a
    /// peer that sends a byte now and then would otherwise hold the exchange for ever.
    static func by<T: Sendable>(_ deadline: NIODeadline, _ work: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                let left = deadline - .now()
                if left > .zero { try await Task.sleep(for: .nanoseconds(left.nanoseconds)) }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw Failure.timedOut }
            return value
        }
    }

    private func sign(_ request: inout HTTPClientRequest, url: URL, body: Data?, signer: Signer) async throws {
        let (keyID, key) = try await signer()
        var host = url.host(percentEncoded: true) ?? ""
        if let port = url.port { host += ":\(port)" }
        var headers = ["host": host, "date": HTTPSignature.httpDate()]
        if let body { headers["digest"] = HTTPSignature.digest(of: body) }
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?\(query)" }
        let signature = try HTTPSignature.sign(
            HTTPSignature.Request(method: request.method.rawValue, target: target, headers: headers), keyID: keyID,
            key: key)
        for (name, value) in headers where name != "host" {
            request.headers.replaceOrAdd(name: name.capitalized, value: value)
        }
        request.headers.replaceOrAdd(name: "Host", value: host)
        request.headers.replaceOrAdd(name: "Signature", value: signature.header)
    }
}
