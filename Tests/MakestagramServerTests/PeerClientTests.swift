import Foundation
import Hummingbird
import HummingbirdTesting
import MakestagramFederation
import Synchronization
import Testing

/// Who other servers' URLs may lead this server to: the address checked is the address connected to.
@Suite struct PeerClientTests {
    /// A policy for which only 127.0.0.1 is public, and names resolve as `names` says (the system knows none of
    /// them: `.invalid` never resolves).
    static func policy(_ names: [String: [UInt8]]) -> PeerPolicy {
        PeerPolicy(resolver: { host in names[host].map { [$0] } ?? [] }, permits: { $0 == [127, 0, 0, 1] })
    }

    static func app(silence: Silence = Silence()) -> some ApplicationProtocol {
        let router = Router()
        router.get("document") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"reached":true}"#)))
        }
        router.get("elsewhere") { request, _ -> Response in
            Response(
                status: .found, headers: [.location: request.uri.queryParameters["to"].map(String.init) ?? "/"])
        }
        router.get("loop") { _, _ -> Response in Response(status: .found, headers: [.location: "/loop"]) }
        router.get("big") { request, _ -> Response in
            // Two MiB of JSON, with its length declared or streamed without one.
            let chunk = ByteBuffer(string: String(repeating: " ", count: 64 * 1024))
            let chunks = [ByteBuffer(string: "{")] + Array(repeating: chunk, count: 32) + [ByteBuffer(string: "}")]
            let declared = request.uri.queryParameters["declared"] != nil
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: declared
                    ? .init(byteBuffer: chunks.reduce(into: ByteBuffer()) { $0.writeImmutableBuffer($1) })
                    : .init(contentsOf: chunks))
        }
        router.get("gzip") { _, _ -> Response in
            // {"a":1} gzipped: a client that inflated it would read a document.
            let gzip: [UInt8] = [
                0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xab, 0x56, 0x4a, 0x54, 0xb2, 0x32, 0xac,
                0x05, 0x00, 0x3e, 0x73, 0x97, 0x5b, 0x07, 0x00, 0x00, 0x00,
            ]
            return Response(
                status: .ok, headers: [.contentType: "application/json", .contentEncoding: "gzip"],
                body: .init(byteBuffer: ByteBuffer(bytes: gzip)))
        }
        router.get("drip") { _, _ -> Response in
            // A document that never ends: a byte now and then, for ever.
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init { writer in
                    try await writer.write(ByteBuffer(string: "{"))
                    while true {
                        try await Task.sleep(for: .milliseconds(200))
                        try await writer.write(ByteBuffer(string: " "))
                    }
                })
        }
        router.post("inbox") { request, _ -> Response in
            // Taken if signed, as an inbox takes it.
            Response(status: request.headers[.init("Signature")!] == nil ? .unauthorized : .accepted)
        }
        router.post("inbox-long") { _, _ -> Response in
            // Taken, then two MiB more about it.
            let chunk = ByteBuffer(string: String(repeating: " ", count: 64 * 1024))
            return Response(status: .accepted, body: .init(contentsOf: Array(repeating: chunk, count: 32)))
        }
        router.post("inbox-drip") { _, _ -> Response in
            // Taken, then a byte now and then, for ever.
            Response(
                status: .accepted,
                body: .init { writer in
                    while true {
                        try await writer.write(ByteBuffer(string: " "))
                        try await Task.sleep(for: .milliseconds(200))
                    }
                })
        }
        router.post("inbox-silent") { _, _ -> Response in
            // No answer until the test ends (a server that shuts down waits for its handlers).
            await silence.hold()
            return Response(status: .accepted)
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// The name is resolved once, by the check, and the connection goes to the address it checked: the system's
    /// resolver, which does not know the name, is never asked.
    @Test func aRequestConnectsToTheAddressCheckedAndNoOther() async throws {
        try await Self.app().test(.live) { client in
            let port = try #require(client.port)
            let peers = PeerClient(
                policy: Self.policy(["pinned.invalid": [127, 0, 0, 1], "inside.invalid": [10, 0, 0, 7]]))
            let document = try await peers.fetchJSON(URL(string: "http://pinned.invalid:\(port)/document")!)
            #expect(document["reached"] as? Bool == true)

            // A name that resolves into a private network is refused before any connection, and so is a redirect
            // there or to an address given as such.
            for url in [
                "http://inside.invalid:\(port)/document",
                "http://pinned.invalid:\(port)/elsewhere?to=http://inside.invalid:\(port)/document",
                "http://pinned.invalid:\(port)/elsewhere?to=http://10.0.0.7:\(port)/document",
            ] {
                await #expect(throws: PeerClient.Failure.self, "\(url)") {
                    _ = try await peers.fetchJSON(URL(string: url)!)
                }
            }
            try await peers.shutdown()
        }
    }

    /// What a hostile server answers is refused, and nothing it does holds the client: redirect loops and more than
    /// three redirects, documents over 1 MiB (declared or streamed), a compressed body (never inflated), and a
    /// document that never ends (cut off at the exchange's time limit).
    @Test(.timeLimit(.minutes(1))) func whatAHostileServerAnswersIsRefused() async throws {
        try await Self.app().test(.live) { client in
            let port = try #require(client.port)
            // A time limit that a loaded machine (the whole suite runs at once) still meets for the answers that end.
            let peers = PeerClient(policy: Self.policy(["hostile.invalid": [127, 0, 0, 1]]), timeout: .seconds(8))
            func failure(_ path: String) async -> PeerClient.Failure? {
                do {
                    _ = try await peers.fetchJSON(URL(string: "http://hostile.invalid:\(port)\(path)")!)
                    return nil
                } catch let failure as PeerClient.Failure {
                    return failure
                } catch {
                    Issue.record("\(path): \(error)")
                    return nil
                }
            }
            #expect(await failure("/loop").map { "\($0)" } == "\(PeerClient.Failure.tooManyRedirects)")
            #expect(await failure("/big?declared=1").map { "\($0)" } == "\(PeerClient.Failure.tooLarge)")
            #expect(await failure("/big").map { "\($0)" } == "\(PeerClient.Failure.tooLarge)")
            #expect(await failure("/gzip").map { "\($0)" } == "\(PeerClient.Failure.notJSON)", "not inflated")
            #expect(await failure("/drip").map { "\($0)" } == "\(PeerClient.Failure.timedOut)", "cut off")
            try await peers.shutdown()
        }
    }

    /// A delivery is signed, and answers its inbox's status without reading more than a little of what follows
    /// (the rest is dropped with the connection); an inbox that keeps sending is cut off at the time limit, and one
    /// that never answers ends as soon as its delivery is cancelled.
    @Test(.timeLimit(.minutes(1))) func aDeliveryAnswersTheInboxsStatusAndNothingHoldsIt() async throws {
        let silence = Silence()
        defer { silence.end() }
        try await Self.app(silence: silence).test(.live) { client in
            let port = try #require(client.port)
            // A time limit the drip outlasts; the silent inbox's is longer than the test may take, so only the cancel
            // can end it.
            let peers = PeerClient(policy: Self.policy(["inbox.invalid": [127, 0, 0, 1]]), timeout: .seconds(4))
            let patient = PeerClient(policy: Self.policy(["inbox.invalid": [127, 0, 0, 1]]), timeout: .seconds(600))
            let key = try SigningKey.make()
            func send(_ path: String, by peers: PeerClient) async throws -> PeerClient.Exchange {
                let prepared = try await peers.prepareDelivery(
                    Data(#"{"type":"Like"}"#.utf8), to: URL(string: "http://inbox.invalid:\(port)\(path)")!,
                    signer: { ("http://here.invalid/actor#main-key", key) })
                return try #require(peers.start([prepared]).first)
            }
            #expect(try await send("/inbox", by: peers).status.get() == 202, "signed")
            #expect(try await send("/inbox-long", by: peers).status.get() == 202)
            do {
                let status = try await send("/inbox-drip", by: peers).status.get()
                Issue.record("a drip answered \(status)")
            } catch {
                #expect("\(error)" == "\(PeerClient.Failure.timedOut)")
            }
            // Cancelled once the inbox has the delivery and is silent about it.
            let silent = try await send("/inbox-silent", by: patient)
            await silence.arrival()
            silent.cancel()
            await #expect(throws: (any Error).self) { _ = try await silent.status.get() }
            silence.end()
            try await patient.shutdown()
            try await peers.shutdown()
        }
    }

    /// Every private, local and reserved range is refused, in IPv4 and IPv6, and IPv4 carried in IPv6 is judged as
    /// the IPv4 it carries.
    @Test func privateRangesAreNotPublic() {
        func v6(_ words: [UInt16]) -> [UInt8] { words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] } }
        let refused: [[UInt8]] = [
            [127, 0, 0, 1], [10, 1, 2, 3], [172, 16, 0, 1], [172, 31, 255, 255], [192, 168, 1, 1],
            [169, 254, 169, 254],
            [100, 64, 0, 1], [0, 0, 0, 0], [224, 0, 0, 1], [255, 255, 255, 255], [198, 18, 0, 1], [192, 0, 0, 8],
            v6([0, 0, 0, 0, 0, 0, 0, 1]), v6([0, 0, 0, 0, 0, 0, 0, 0]), v6([0xfe80, 0, 0, 0, 0, 0, 0, 1]),
            v6([0xfc00, 0, 0, 0, 0, 0, 0, 1]), v6([0xfd12, 0x3456, 0, 0, 0, 0, 0, 1]),
            v6([0xff02, 0, 0, 0, 0, 0, 0, 1]),
            v6([0, 0, 0, 0, 0, 0xffff, 0x7f00, 0x0001]), v6([0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0001]),
            v6([0x64, 0xff9b, 0, 0, 0, 0, 0xa9fe, 0xa9fe]), v6([0x2001, 0x0db8, 0, 0, 0, 0, 0, 1]),
        ]
        for address in refused { #expect(!PeerPolicy.isPublic(address), "\(address)") }
        let allowed: [[UInt8]] = [
            [8, 8, 8, 8], [1, 1, 1, 1], [172, 32, 0, 1], [100, 128, 0, 1], v6([0x2001, 0x4860, 0, 0, 0, 0, 0, 0x8888]),
            v6([0, 0, 0, 0, 0, 0xffff, 0x0808, 0x0808]),
        ]
        for address in allowed { #expect(PeerPolicy.isPublic(address), "\(address)") }
    }
}

/// An inbox's silence: each request it holds waits until ``end()``; ``arrival()`` waits until one is held.
final class Silence: Sendable {
    private struct State {
        var arrived = 0
        var ended = false
        var held: [CheckedContinuation<Void, Never>] = []
        var arrivals: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    /// Holds the calling handler until ``end()``.
    func hold() async {
        await withCheckedContinuation { continuation in
            let (resume, arrivals) = state.withLock { state in
                state.arrived += 1
                defer { state.arrivals = [] }
                if state.ended { return (true, state.arrivals) }
                state.held.append(continuation)
                return (false, state.arrivals)
            }
            for waiter in arrivals { waiter.resume() }
            if resume { continuation.resume() }
        }
    }

    /// Returns once a request is held (or was).
    func arrival() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.arrived > 0 { return true }
                state.arrivals.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets every held request answer, and any later one at once.
    func end() {
        let held = state.withLock { state in
            state.ended = true
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }
}
