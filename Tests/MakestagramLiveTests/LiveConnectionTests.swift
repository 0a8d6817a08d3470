import MakestagramAPI
import MakestagramStore
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import MakestagramLive

/// The two writers of a connection — direct drains on the event loop and the writer task — and the outbox.
@Suite struct LiveConnectionTests {
    let user = UserSummary(id: 7, username: "viewer", displayName: "Viewer")

    func like(_ post: Int64, version: Int64, count: Int) -> LiveDelivery {
        LiveDelivery(
            LikeChange(
                postID: post, actor: UserSummary(id: 9, username: "fan", displayName: "Fan"), liked: true,
                likeCount: count, likers: ["fan"], version: version, authorID: 1))
    }

    func snapshot(_ id: Int64, version: Int64 = 1) -> Post {
        Post(
            id: id, createdAt: .init(timeIntervalSince1970: 0), caption: "", author: user,
            image: PostImage(
                width: 1, height: 1, full: ImageVariant(url: "/media/x", width: 1, height: 1),
                thumb: ImageVariant(url: "/media/y", width: 1, height: 1)),
            likeCount: 0, commentCount: 0, viewerHasLiked: false, likers: [], version: version)
    }

    /// A channel with the frame encoder the live engine writes below, as in a real WebSocket pipeline.
    func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    func messages(in bytes: ByteBuffer) -> [String] {
        var bytes = bytes
        var texts: [String] = []
        while bytes.readableBytes >= 2, let header = bytes.readBytes(length: 2) {
            var length = Int(header[1] & 0x7F)
            if length == 126 { length = Int(bytes.readInteger(as: UInt16.self)!) }
            texts.append(bytes.readString(length: length)!)
        }
        return texts
    }

    func written(_ channel: EmbeddedChannel) throws -> [String] {
        var all = ByteBuffer()
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) { all.writeBuffer(&buffer) }
        return messages(in: all)
    }

    @Test func directDrainsWriteFinishedFramesInOrder() throws {
        let channel = try channel()
        let connection = LiveConnection(user: user, tokenHash: [], queueLimit: 100, channel: channel)
        _ = connection.beginSubscribe([1])
        connection.completeSubscribe(found: [snapshot(1)], unavailable: [])
        connection.deliver(like(1, version: 2, count: 1))
        channel.embeddedEventLoop.run()
        let texts = try written(channel)
        #expect(texts.count == 3)
        #expect(texts[0].contains("\"subscribed\"") && texts[1].contains("post.snapshot"))
        #expect(texts[2].contains("post.liked") && texts[2].contains("\"likeCount\":1"))
    }

    @Test func aSocketThatCannotTakeMoreHandsOverToTheWriterTaskAndBack() async throws {
        let channel = try channel()
        let connection = LiveConnection(user: user, tokenHash: [], queueLimit: 100, channel: channel)
        _ = connection.beginSubscribe([1])
        connection.completeSubscribe(found: [snapshot(1)], unavailable: [])
        channel.embeddedEventLoop.run()
        _ = try written(channel)
        channel.isWritable = false
        connection.deliver(like(1, version: 2, count: 1))
        connection.deliver(like(1, version: 3, count: 2))
        channel.embeddedEventLoop.run()
        #expect(try written(channel).isEmpty, "nothing is written directly to a full socket")
        // The writer task gets the newest like state only (coalesced), then gives the outbox back.
        let frames = await connection.nextFrames()
        #expect(frames.map { $0.map { String(buffer: WireFrame.payload(of: $0)) } }?.count == 1)
        #expect(String(buffer: WireFrame.payload(of: frames![0])).contains("\"likeCount\":2"))
        channel.isWritable = true
        let handedBack = Task { await connection.nextFrames() }
        try await Task.sleep(for: .milliseconds(50))
        connection.deliver(like(1, version: 4, count: 3))
        channel.embeddedEventLoop.run()
        #expect(try written(channel).count == 1, "direct drains write again once the task has emptied the outbox")
        connection.finish()
        #expect(await handedBack.value == nil)
    }

    @Test func withoutDirectWritesEveryFrameGoesThroughTheWriterTask() async throws {
        // As when a WebSocket extension is negotiated: the library's writer must see every frame.
        let channel = try channel()
        let connection = LiveConnection(
            user: user, tokenHash: [], queueLimit: 100, channel: channel, directWrites: false)
        connection.send(.error(LiveError(code: .badMessage, detail: "x")))
        channel.embeddedEventLoop.run()
        #expect(try written(channel).isEmpty)
        let frames = try #require(await connection.nextFrames())
        #expect(frames.count == 1 && String(buffer: WireFrame.payload(of: frames[0])).contains("bad_message"))
    }

    @Test func aClientTooFarBehindIsToldToResync() async {
        let connection = LiveConnection(user: user, tokenHash: [], queueLimit: 2)
        for index in 0..<3 { connection.send(.error(LiveError(code: .badMessage, detail: "\(index)"))) }
        #expect(await connection.nextFrames() == nil)
        #expect(connection.closeRequest?.code == LiveCloseCode.resync)
    }

    @Test func wireFramesCarryTheirPayloadWithTheRightHeader() {
        for length in [0, 125, 126, 65535, 65536] {
            let payload = ByteBuffer(repeating: 0x61, count: length)
            let frame = WireFrame.text(payload)
            #expect(frame.getInteger(at: 0, as: UInt8.self) == 0x81)
            #expect(frame.readableBytes == length + (length < 126 ? 2 : length < 65536 ? 4 : 10))
            #expect(WireFrame.payload(of: frame) == payload)
        }
    }

    @Test func theOutboxKeepsOnlyTheNewestLikeStateOfAPost() {
        var outbox = LiveOutbox()
        outbox.appendLikeState(ByteBuffer(string: "like 1"), postID: 1)
        outbox.append(ByteBuffer(string: "comment"))
        outbox.appendLikeState(ByteBuffer(string: "like 2"), postID: 1)
        outbox.appendLikeState(ByteBuffer(string: "other"), postID: 2)
        outbox.dropLikeState(postID: 2)
        #expect(outbox.count == 2)
        #expect(outbox.takeAll().map { String(buffer: $0) } == ["comment", "like 2"])
        #expect(outbox.isEmpty)
    }
}
