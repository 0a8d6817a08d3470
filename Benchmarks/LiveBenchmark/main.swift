// Live-update benchmark client: holds N subscribed WebSocket connections to one post on a running server, then
// measures (1) the server's resident memory per idle connection, (2) the time from sending a like to its delivery
// on every subscriber, and (3) the deliveries per second the server sustains under back-to-back likes.
// Usage: LiveBenchmark <base URL> <server pid> <token> <liker token> <post id> <connection counts…>
import Foundation
import NIOCore
import NIOPosix
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Nanoseconds on the monotonic clock.
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// What every connection has received, shared with the event-loop thread.
final class Recorder: Sendable {
    struct State {
        var subscribed = 0
        /// Arrival times of like frames, per round (one round per like in the latency phase).
        var arrivals: [[UInt64]] = []
        var deliveries = 0
        var lastDelivery: UInt64 = 0
        var closed = 0
    }
    let state = Mutex(State())

    func like(round: Int, at time: UInt64) {
        state.withLock { state in
            while state.arrivals.count <= round { state.arrivals.append([]) }
            state.arrivals[round].append(time)
            state.deliveries += 1
            state.lastDelivery = time
        }
    }
}

/// A minimal WebSocket client: sends the upgrade, subscribes, and counts like frames without decoding them.
final class SubscriberHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let recorder: Recorder
    let request: ByteBuffer
    let subscribe: ByteBuffer
    var buffer = ByteBuffer()
    var upgraded = false
    var likes = 0

    init(recorder: Recorder, host: String, port: Int, token: String, post: Int64) {
        self.recorder = recorder
        request = ByteBuffer(
            string: "GET /api/v1/events HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: Upgrade\r\n"
                + "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Authorization: Bearer \(token)\r\n\r\n")
        let payload = Array(#"{"type":"subscribe","posts":[\#(post)]}"#.utf8)
        var frame = ByteBuffer(bytes: [0x81, 0x80 | UInt8(payload.count), 0, 0, 0, 0])
        frame.writeBytes(payload)
        subscribe = frame
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(request), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.writeBuffer(&incoming)
        if !upgraded {
            guard let end = buffer.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            buffer.moveReaderIndex(to: end.upperBound)
            upgraded = true
            context.writeAndFlush(wrapOutboundOut(subscribe), promise: nil)
        }
        while let payload = nextFrame(context: context) {
            // A plain byte search keeps the client far cheaper per frame than the server (a generic
            // `firstRange(of:)` made the client the bottleneck).
            if Self.contains(payload, Self.liked) || Self.contains(payload, Self.unliked) {
                recorder.like(round: likes, at: now())
                likes += 1
            } else if Self.contains(payload, Self.snapshot) {
                recorder.state.withLock { $0.subscribed += 1 }
            }
        }
        buffer.discardReadBytes()
    }

    static let liked = Array("\"post.liked\"".utf8)
    static let unliked = Array("\"post.unliked\"".utf8)
    static let snapshot = Array("\"post.snapshot\"".utf8)

    /// Whether `pattern` occurs in `payload`.
    static func contains(_ payload: ByteBuffer, _ pattern: [UInt8]) -> Bool {
        payload.withUnsafeReadableBytes { bytes in
            let limit = bytes.count - pattern.count
            guard limit >= 0 else { return false }
            outer: for start in 0...limit {
                for offset in 0..<pattern.count where bytes[start + offset] != pattern[offset] { continue outer }
                return true
            }
            return false
        }
    }

    /// The payload of the next complete frame (server frames are unmasked); answers pings.
    func nextFrame(context: ChannelHandlerContext) -> ByteBuffer? {
        guard let bytes = buffer.getBytes(at: buffer.readerIndex, length: min(10, buffer.readableBytes)),
            bytes.count >= 2
        else { return nil }
        var length = Int(bytes[1] & 0x7F)
        var header = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            header = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        guard buffer.readableBytes >= header + length else { return nil }
        buffer.moveReaderIndex(forwardBy: header)
        let payload = buffer.readSlice(length: length)!
        switch bytes[0] & 0x0F {
        case 0x9:  // ping → pong with the same payload, masked with a zero key
            var pong = ByteBuffer(bytes: [0x8A, 0x80 | UInt8(length), 0, 0, 0, 0])
            pong.writeImmutableBuffer(payload)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            return nextFrame(context: context)
        case 0x8:
            context.close(promise: nil)
            return nil
        default:
            return payload
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        recorder.state.withLock { $0.closed += 1 }
    }
}

func residentKiB(pid: String) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

func toggle(_ base: String, token: String, post: Int64, like: Bool) async throws {
    var request = URLRequest(url: URL(string: "\(base)/api/v1/posts/\(post)/like")!)
    request.httpMethod = like ? "PUT" : "DELETE"
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    let (_, response) = try await URLSession.shared.data(for: request)
    guard (response as? HTTPURLResponse)?.statusCode == 200 else { fatalError("like failed: \(response)") }
}

func wait(until deadline: Duration, _ done: () -> Bool) async throws -> Bool {
    let end = ContinuousClock.now + deadline
    while ContinuousClock.now < end {
        if done() { return true }
        try await Task.sleep(for: .milliseconds(2))
    }
    return done()
}

/// The whole run, in a nonisolated function: the event loop calls back into what it sets up.
nonisolated func runBenchmark(_ arguments: [String]) async throws {
    guard arguments.count >= 7 else {
        print("usage: LiveBenchmark <base URL> <server pid> <token> <liker token> <post id> <connection counts…>")
        exit(2)
    }
    let base = arguments[1]
    let serverPID = arguments[2]
    let token = arguments[3]
    let likerToken = arguments[4]
    let post = Int64(arguments[5])!
    let counts = arguments[6...].compactMap(Int.init)
    let url = URL(string: base)!
    let host = url.host!
    let port = url.port!

    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let recorder = Recorder()
    var channels: [any Channel] = []
    var liked = false
    let baseline = residentKiB(pid: serverPID)
    print("server resident memory before connections: \(baseline) KiB")
    print("| connections | server KiB/conn | like→delivery p50 | p99 | time to all p50 | p99 | deliveries/s |")
    print("|---|---|---|---|---|---|---|")

    for target in counts {
        // Open connections in batches until `target` are subscribed.
        while channels.count < target {
            let batch = min(250, target - channels.count)
            let opened = try await withThrowingTaskGroup(of: (any Channel).self) { tasks in
                for _ in 0..<batch {
                    tasks.addTask {
                        try await ClientBootstrap(group: group)
                            .channelInitializer { channel in
                                channel.eventLoop.makeCompletedFuture {
                                    try channel.pipeline.syncOperations.addHandler(
                                        SubscriberHandler(
                                            recorder: recorder, host: host, port: port, token: token, post: post))
                                }
                            }
                            .connect(host: host, port: port).get()
                    }
                }
                var opened: [any Channel] = []
                for try await channel in tasks { opened.append(channel) }
                return opened
            }
            channels += opened
            let expected = channels.count
            guard try await wait(until: .seconds(60), { recorder.state.withLock { $0.subscribed >= expected } }) else {
                fatalError("only \(recorder.state.withLock { $0.subscribed }) of \(expected) subscribed")
            }
        }
        try await Task.sleep(for: .seconds(2))
        let perConnection = Double(residentKiB(pid: serverPID) - baseline) * 1024 / Double(target)

        // Latency: one like at a time, each waited for on every subscriber.
        recorder.state.withLock {
            $0.arrivals = []
            $0.deliveries = 0
        }
        var perDelivery: [Double] = []
        var toAll: [Double] = []
        let rounds = 20
        for round in 0..<rounds {
            liked.toggle()
            // From the moment the like is sent: a server may deliver before its answer to the liker leaves (one
            // event loop writes the fan-out first), so timing from the answer would hide that time.
            let sent = now()
            try await toggle(base, token: likerToken, post: post, like: liked)
            let complete = try await wait(until: .seconds(30)) {
                recorder.state.withLock { $0.arrivals.count > round && $0.arrivals[round].count >= target }
            }
            if !complete { print("round \(round): not every subscriber received the like") }
            let arrivals = recorder.state.withLock { $0.arrivals.count > round ? $0.arrivals[round] : [] }
            let latencies = arrivals.map { Double(Int64($0) - Int64(sent)) / 1e6 }
            perDelivery += latencies
            toAll.append(latencies.max() ?? .nan)
            try await Task.sleep(for: .milliseconds(50))
        }

        // Throughput: back-to-back toggles for a few seconds; every like frame received counts.
        let before = recorder.state.withLock { $0.deliveries }
        let start = now()
        let burstEnd = ContinuousClock.now + .seconds(5)
        var requests = 0
        while ContinuousClock.now < burstEnd {
            liked.toggle()
            try await toggle(base, token: likerToken, post: post, like: liked)
            requests += 1
        }
        // Wait until deliveries stop arriving.
        var last = recorder.state.withLock { $0.deliveries }
        while true {
            try await Task.sleep(for: .milliseconds(500))
            let current = recorder.state.withLock { $0.deliveries }
            if current == last { break }
            last = current
        }
        let (delivered, lastTime) = recorder.state.withLock { ($0.deliveries - before, $0.lastDelivery) }
        let rate = Double(delivered) / (Double(lastTime - start) / 1e9)
        print(
            String(
                format: "| %d | %.1f KiB | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.0f (%d likes → %d deliveries) |",
                target, perConnection / 1024, percentile(perDelivery, 0.5), percentile(perDelivery, 0.99),
                percentile(toAll, 0.5), percentile(toAll, 0.99), rate, requests, delivered))
        // Each connection numbers the likes it receives; the next phase starts again from zero.
        recorder.state.withLock { $0.arrivals = [] }
        for channel in channels {
            try await channel.eventLoop.submit {
                let handler = try channel.pipeline.syncOperations.handler(type: SubscriberHandler.self)
                handler.likes = 0
            }.get()
        }
    }
    let closed = recorder.state.withLock { $0.closed }
    print("connections closed by the server during the run: \(closed)")
    for channel in channels { channel.close(promise: nil) }
    try await group.shutdownGracefully()
}

try await runBenchmark(CommandLine.arguments)
