import HTTPTypes
import Logging
import NIOCore

/// The first handler of every connection, next to the socket: admits it under the server's connection cap, gives
/// every phase of it a deadline, and checks that a client's WebSocket frames are masked.
///
/// It sees raw bytes, so it knows about requests only what ``RequestObserver`` (placed after the HTTP decoder)
/// tells it. Until the first request head is decoded no observer exists yet (Hummingbird adds its HTTP handlers
/// only once it knows the connection is not a WebSocket upgrade): a connection that opens and sends nothing, or
/// half a head, is cut after ``ConnectionLimits/headTimeout`` all the same.
///
/// Phases and their deadlines:
/// - idle (between requests): ``ConnectionLimits/idleTimeout`` after the last response (a new connection:
///   ``ConnectionLimits/headTimeout`` after the accept);
/// - head (bytes of a request arrived, its head is not complete): ``ConnectionLimits/headTimeout`` after the
///   first byte;
/// - body: ``ConnectionLimits/headTimeout`` plus one second per ``ConnectionLimits/minBodyBytesPerSecond`` bytes
///   received, from the head;
/// - working (the request is read; the server is answering) and WebSocket: none (sockets are pinged instead).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private enum Phase {
        case idle(since: NIODeadline, fresh: Bool)
        case head(since: NIODeadline)
        case body(since: NIODeadline, received: Int)
        case working
        case webSocket
    }

    private let limits: ConnectionLimits
    private let counter: ConnectionCounter
    private let logger: Logger
    private var phase: Phase = .idle(since: .now(), fresh: true)
    /// Requests whose head has been read and whose response has not ended.
    private var unanswered = 0
    /// Whether the connection may still switch to WebSocket: until its first answer is written, or a first request
    /// reaches the observer (an upgrade is only ever the first request's answer). After that, writes pass untouched.
    private var mayUpgrade = true
    private var admitted = false
    /// The address the connection was counted under, released with it.
    private var addressKey: ConnectionCounter.AddressKey?
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    private var frames = ClientFrameScanner()
    /// This handler's place in the pipeline, for the calls ``RequestObserver`` makes.
    private var context: ChannelHandlerContext?

    init(limits: ConnectionLimits, counter: ConnectionCounter, logger: Logger) {
        self.limits = limits
        self.counter = counter
        self.logger = logger
    }

    // MARK: Admission

    func channelActive(context: ChannelHandlerContext) {
        let key = counter.key(for: context.channel.remoteAddress)
        if let refusal = counter.admit(key) {
            // Full: answer at once and close, so the client learns it instead of waiting in the accept queue.
            let response: ByteBuffer
            switch refusal {
            case .serverFull:
                logger.debug("connection refused: server full", metadata: ["limit": "\(counter.limit)"])
                response = Self.rawResponse(503, "Service Unavailable")
            case .addressFull:
                logger.debug(
                    "connection refused: too many from one address",
                    metadata: [
                        "limit": "\(counter.perAddress)", "peer": "\(context.channel.remoteAddress?.ipAddress ?? "")",
                    ])
                response = Self.rawResponse(429, "Too Many Requests", retryAfter: 1)
            }
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(response)))
                .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            return
        }
        admitted = true
        addressKey = key
        phase = .idle(since: .now(), fresh: true)
        updateTimer(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if admitted {
            admitted = false
            counter.release(addressKey)
        }
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    // MARK: Bytes

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch phase {
        case .idle:
            phase = .head(since: .now())
            updateTimer(context)
        case .webSocket:
            guard frames.scan(unwrapInboundIn(data)) else {
                // RFC 6455 §5.1: a server must close the connection on an unmasked frame from a client.
                logger.debug("WebSocket frame without a mask; closing with 1002")
                let close: [UInt8] = [0x88, 0x02, 0x03, 0xEA]
                context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(bytes: close))))
                    .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
                return
            }
        case .head, .body, .working:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if mayUpgrade, case .byteBuffer(let buffer) = unwrapOutboundIn(data) {
            mayUpgrade = false
            if Self.isSwitchingProtocols(buffer) {
                phase = .webSocket
                timer?.cancel()
                timer = nil
            }
        }
        context.write(data, promise: promise)
    }

    private static let switchingProtocols = Array("HTTP/1.1 101 ".utf8)

    private static func isSwitchingProtocols(_ buffer: ByteBuffer) -> Bool {
        buffer.readableBytes >= switchingProtocols.count
            && buffer.readableBytesView.prefix(switchingProtocols.count).elementsEqual(switchingProtocols)
    }

    // MARK: Requests (from RequestObserver and MalformedRequestHandler)

    func requestHeadRead() {
        mayUpgrade = false
        unanswered += 1
        phase = .body(since: .now(), received: 0)
        if let context { updateTimer(context) }
    }

    func requestBodyRead(bytes: Int) {
        if case .body(let since, let received) = phase { phase = .body(since: since, received: received + bytes) }
    }

    func requestEnded() {
        phase = unanswered > 0 ? .working : .idle(since: .now(), fresh: false)
        if let context { updateTimer(context) }
    }

    func responseEnded() {
        unanswered = max(0, unanswered - 1)
        if unanswered == 0, case .working = phase {
            phase = .idle(since: .now(), fresh: false)
            if let context { updateTimer(context) }
        }
    }

    /// Answers 400 and closes when the HTTP decoder failed while no response is under way; false when a response
    /// is (Hummingbird then answers once it is done).
    func answerMalformedRequest() -> Bool {
        guard unanswered == 0, let context else { return false }
        phase = .working
        timer?.cancel()
        timer = nil
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(Self.rawResponse(400, "Bad Request"))))
            .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        return true
    }

    // MARK: Deadlines

    private var deadline: NIODeadline? {
        switch phase {
        case .idle(let since, let fresh):
            since + TimeAmount(fresh ? limits.headTimeout : limits.idleTimeout)
        case .head(let since):
            since + TimeAmount(limits.headTimeout)
        case .body(let since, let received):
            since + TimeAmount(limits.headTimeout)
                + .nanoseconds(Int64(received) * 1_000_000_000 / Int64(max(1, limits.minBodyBytesPerSecond)))
        case .working, .webSocket:
            nil
        }
    }

    /// Makes sure a timer fires no later than the current deadline (a later one is simply checked again).
    private func updateTimer(_ context: ChannelHandlerContext) {
        guard let deadline else { return }
        if let timerDeadline, timer != nil, timerDeadline <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            guard let deadline = self.deadline else { return }
            if NIODeadline.now() >= deadline {
                expire(context)
            } else {
                updateTimer(context)
            }
        }
    }

    private func expire(_ context: ChannelHandlerContext) {
        let phaseName: String
        // A 408 only where no answer to the request is under way or done (a refused body may still be arriving).
        let answer: Bool
        switch phase {
        case .idle:
            (phaseName, answer) = ("idle", false)
        case .head:
            (phaseName, answer) = ("head", unanswered == 0)
        case .body:
            (phaseName, answer) = ("body", unanswered == 1)
        case .working, .webSocket:
            return
        }
        logger.debug("connection timed out", metadata: ["phase": "\(phaseName)"])
        phase = .working
        guard answer else { return context.close(promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(Self.rawResponse(408, "Request Timeout"))))
            .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// A complete response written below the HTTP encoder, for connections that are closed before or instead of
    /// being served: a problem-details body and `Connection: close`.
    static func rawResponse(_ status: Int, _ reason: String, retryAfter: Int? = nil) -> ByteBuffer {
        let code = APIError.code(of: HTTPResponse.Status(code: status)).rawValue
        let body =
            #"{"type":"https://makestagram.dev/problems/\#(code)","title":"\#(reason)","status":\#(status),"#
            + #""detail":"\#(detail(status))","code":"\#(code)"}"#
        let retry = retryAfter.map { "Retry-After: \($0)\r\n" } ?? ""
        return ByteBuffer(
            string: "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/problem+json\r\n\(retry)"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
    }

    private static func detail(_ status: Int) -> String {
        switch status {
        case 400:
            "The request is not valid HTTP/1.1 (line endings must be CRLF; send Content-Length or chunked, not both)."
        case 408: "The request did not arrive in time; send it again."
        case 429: "Your address holds as many connections as one address may; close one or try again shortly."
        default: "The server is at its connection limit; try again shortly."
        }
    }
}

/// Follows the frame headers of a client's WebSocket stream (RFC 6455 §5.2) to check that every frame is masked,
/// skipping payloads without looking at them.
struct ClientFrameScanner {
    private var header: [UInt8] = []
    private var payloadLeft: UInt64 = 0

    /// Reads the next bytes of the stream; false as soon as a frame header without the mask bit is seen.
    mutating func scan(_ buffer: ByteBuffer) -> Bool {
        var bytes = buffer.readableBytesView[...]
        while !bytes.isEmpty {
            if payloadLeft > 0 {
                let skipped = Int(min(UInt64(bytes.count), payloadLeft))
                bytes = bytes.dropFirst(skipped)
                payloadLeft -= UInt64(skipped)
                continue
            }
            header.append(bytes.removeFirst())
            guard header.count >= 2 else { continue }
            guard header[1] & 0x80 != 0 else { return false }
            let shortLength = header[1] & 0x7F
            let extended = shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0
            guard header.count == 2 + extended + 4 else { continue }
            payloadLeft =
                extended == 0
                ? UInt64(shortLength) : header[2..<(2 + extended)].reduce(0) { $0 << 8 | UInt64($1) }
            header.removeAll(keepingCapacity: true)
        }
        return true
    }
}
