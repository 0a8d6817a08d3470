import NIOCore

/// A server-to-client WebSocket text frame as it goes on the wire (unmasked header and payload), built once per
/// event and shared by every recipient, so fanning an event out copies and encodes nothing per socket.
enum WireFrame {
    /// The whole frame carrying `payload`.
    static func text(_ payload: ByteBuffer) -> ByteBuffer {
        let length = payload.readableBytes
        var frame = ByteBufferAllocator().buffer(capacity: length + 10)
        frame.writeInteger(UInt8(0x81))  // FIN, text
        switch length {
        case ..<126:
            frame.writeInteger(UInt8(length))
        case ..<65536:
            frame.writeInteger(UInt8(126))
            frame.writeInteger(UInt16(length))
        default:
            frame.writeInteger(UInt8(127))
            frame.writeInteger(UInt64(length))
        }
        frame.writeImmutableBuffer(payload)
        return frame
    }

    /// The payload of a frame made by ``text(_:)``.
    static func payload(of frame: ByteBuffer) -> ByteBuffer {
        let header: Int =
            switch frame.getInteger(at: frame.readerIndex + 1, as: UInt8.self) ?? 0 {
            case 126: 4
            case 127: 10
            default: 2
            }
        return frame.getSlice(at: frame.readerIndex + header, length: frame.readableBytes - header) ?? ByteBuffer()
    }
}
