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
            if let signer { try await sign(&request.headers, method: .GET, url: url, body: nil, signer: signer) }
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

    /// A delivery signed and ready to send (``start(_:)``).
    public struct PreparedDelivery: Sendable {
        let client: HTTPClient
        let request: HTTPClient.Request
    }

    /// A delivery under way: its status once the inbox has answered (failing with ``Failure/timedOut`` past the time
    /// limit), completed on an event loop; and how to end it early.
    public struct Exchange: Sendable {
        public let status: EventLoopFuture<Int>
        public let cancel: @Sendable () -> Void
    }

    /// Checks `inbox` and signs a delivery of `body` to it.
    public func prepareDelivery(_ body: Data, to inbox: URL, signer: Signer) async throws -> PreparedDelivery {
        let client = try await client(for: inbox)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/activity+json")
        try await sign(&headers, method: .POST, url: inbox, body: body, signer: signer)
        return PreparedDelivery(
            client: client,
            request: try HTTPClient.Request(
                url: inbox.absoluteString, method: .POST, headers: headers, body: .bytes(body)))
    }

    /// Starts `deliveries` on one event loop, handed over together; answers at once.
    ///
    /// Each answer is read on the event loop (``InboxAnswer``) and its body dropped there, and the time limit covers
    /// the whole exchange: whoever waits for many deliveries is woken when they have ended, not once per answer's
    /// head and body, and the event loop is woken once for all of them.
    public func start(_ deliveries: [PreparedDelivery]) -> [Exchange] {
        guard let first = deliveries.first else { return [] }
        let loop = first.client.eventLoopGroup.next()
        let deadline = NIODeadline.now() + timeout
        let exchanges = deliveries.map { _ in (promise: loop.makePromise(of: Int.self), handle: ExchangeHandle()) }
        loop.execute {
            for (delivery, exchange) in zip(deliveries, exchanges) {
                let task = delivery.client.execute(
                    request: delivery.request, delegate: InboxAnswer(), eventLoop: .delegate(on: loop),
                    deadline: deadline)
                exchange.handle.started(task)
                task.futureResult.flatMapErrorThrowing { error in
                    switch error {
                    case InboxAnswer.Overlong.answer(let status): return status  // the rest is not read
                    case let error as HTTPClientError where error == .deadlineExceeded: throw Failure.timedOut
                    default: throw error
                    }
                }.cascade(to: exchange.promise)
            }
        }
        return exchanges.map { exchange in
            Exchange(status: exchange.promise.futureResult, cancel: { exchange.handle.cancel() })
        }
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

    /// Adds `Host`, `Date`, `Digest` (of `body`, if any) and `Signature` to `headers`, signed by `signer`.
    private func sign(_ headers: inout HTTPHeaders, method: HTTPMethod, url: URL, body: Data?, signer: Signer)
        async throws
    {
        let (keyID, key) = try await signer()
        var host = url.host(percentEncoded: true) ?? ""
        if let port = url.port { host += ":\(port)" }
        var signed = ["host": host, "date": HTTPSignature.httpDate()]
        if let body { signed["digest"] = HTTPSignature.digest(of: body) }
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?\(query)" }
        let signature = try HTTPSignature.sign(
            HTTPSignature.Request(method: method.rawValue, target: target, headers: signed), keyID: keyID, key: key)
        for (name, value) in signed where name != "host" {
            headers.replaceOrAdd(name: name.capitalized, value: value)
        }
        headers.replaceOrAdd(name: "Host", value: host)
        headers.replaceOrAdd(name: "Signature", value: signature.header)
    }
}

/// A delivery's exchange as it is started on its event loop, to cancel it from anywhere, before or after.
private final class ExchangeHandle: Sendable {
    private let state = Mutex<(task: HTTPClient.Task<Int>?, cancelled: Bool)>((nil, false))

    func started(_ task: HTTPClient.Task<Int>) {
        if state.withLock({ state in
            state.task = task
            return state.cancelled
        }) {
            task.cancel()
        }
    }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            return state.task
        }?.cancel()
    }
}

/// An inbox's answer to a delivery, read on the event loop: its status, and its body dropped after counting it. An
/// answer longer than ``limit`` ends the exchange (``Overlong``), with the status it had.
private final class InboxAnswer: HTTPClientResponseDelegate {
    typealias Response = Int
    enum Overlong: Error { case answer(status: Int) }

    /// The most bytes of an answer read.
    static var limit: Int { 64 * 1024 }
    // Touched only on the exchange's event loop, one call after another.
    private nonisolated(unsafe) var status = 0
    private nonisolated(unsafe) var read = 0

    func didReceiveHead(task: HTTPClient.Task<Int>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        status = Int(head.status.code)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Int>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        read += buffer.readableBytes
        guard read <= Self.limit else { return task.eventLoop.makeFailedFuture(Overlong.answer(status: status)) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Int>) throws -> Int { status }
}
