import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A WebSocket client that stops reading: it opens the event stream by hand over a socket with a tiny receive
/// buffer, subscribes, then reads nothing more until told to, so the server's writes back up as they would for a
/// phone that went into a tunnel.
final class StalledClient: Sendable {
    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received = Mutex<(bytes: [UInt8], closed: Bool)>(([], false))

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            received.withLock { $0.bytes.append(contentsOf: buffer.readableBytesView) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            received.withLock { $0.closed = true }
        }
    }

    private let channel: any Channel
    private let collector: Collector

    init(port: Int, token: String) async throws {
        let collector = Collector()
        self.collector = collector
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: false)
            .channelOption(.socketOption(.so_rcvbuf), value: 2048)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(collector)
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let request =
            "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
            + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            + "Authorization: Bearer \(token)\r\n\r\n"
        try await channel.writeAndFlush(ByteBuffer(string: request))
        try await readUntil("\"hello\"")
    }

    /// Subscribes and reads until the snapshot has arrived; after that nothing is read.
    func subscribe(_ post: Int64) async throws {
        let payload = Array(#"{"type":"subscribe","posts":[\#(post)]}"#.utf8)
        // A masked text frame with a zero mask (clients must mask; a zero key leaves the payload as it is).
        var frame = ByteBuffer(bytes: [0x81, 0x80 | UInt8(payload.count), 0, 0, 0, 0])
        frame.writeBytes(payload)
        try await channel.writeAndFlush(frame)
        try await readUntil("post.snapshot")
    }

    private func readUntil(_ marker: String) async throws {
        for _ in 0..<2000 {
            let text = collector.received.withLock { String(decoding: $0.bytes, as: UTF8.self) }
            if text.contains(marker) { return }
            channel.read()
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CancellationError()
    }

    /// Starts reading again and waits (at most a minute) until the server has closed the connection; answers
    /// whether it did.
    func resumeAndWaitForClose() async throws -> Bool {
        try await channel.setOption(.autoRead, value: true).get()
        channel.read()
        for _ in 0..<6000 {
            if collector.received.withLock({ $0.closed }) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Everything received, as text (frames' payloads are readable within it).
    var received: String { collector.received.withLock { String(decoding: $0.bytes, as: UTF8.self) } }

    func close() {
        channel.close(promise: nil)
    }
}
