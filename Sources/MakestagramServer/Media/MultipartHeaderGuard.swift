import NIOCore

/// Walks a multipart body as it arrives, beside MultipartKit's parser and before it, and refuses a part header whose
/// name has a byte outside ASCII. MultipartKit 4.7 looks such a byte up in a table of 128 entries and traps (index
/// out of range): one request would end the server for everyone. Names are tokens (RFC 7230), so nothing well-formed
/// is refused.
///
/// It finds each delimiter (`CRLF--boundary`, the first one without its CRLF), skips the rest of that line, and then
/// reads header lines up to the empty one: the name is what comes before `:`. Bytes between parts are not looked at
/// otherwise.
struct MultipartHeaderGuard {
    enum Failure: Error { case nonASCIIHeaderName }

    private enum State {
        /// In a part's body (or the preamble): `matched` bytes of the delimiter seen.
        case seeking(matched: Int)
        /// After a delimiter: the rest of its line (`--` for the last one, or transport padding).
        case delimiterLine
        /// At the start of a header line.
        case lineStart
        /// After the CR of the empty line that ends the headers.
        case headersEnding
        case name
        case value
    }

    private let delimiter: [UInt8]
    /// The body starts as if a CRLF came before it, so that its first delimiter is found like the others.
    private var state: State = .seeking(matched: 2)

    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    mutating func check(_ buffer: ByteBuffer) throws {
        try buffer.withUnsafeReadableBytes { bytes in
            for byte in bytes { try step(byte) }
        }
    }

    private mutating func step(_ byte: UInt8) throws {
        switch state {
        case .seeking(let matched):
            if byte == delimiter[matched] {
                state = matched + 1 == delimiter.count ? .delimiterLine : .seeking(matched: matched + 1)
            } else {
                // The delimiter's only CR is its first byte: a mismatch restarts at a CR or at nothing.
                state = .seeking(matched: byte == delimiter[0] ? 1 : 0)
            }
        case .delimiterLine:
            if byte == UInt8(ascii: "\n") { state = .lineStart }
        case .lineStart:
            if byte == UInt8(ascii: "\r") {
                state = .headersEnding
            } else {
                state = .name
                try step(byte)
            }
        case .headersEnding:
            if byte == UInt8(ascii: "\n") {
                state = .seeking(matched: 0)
            } else {
                state = .name
                try step(byte)
            }
        case .name:
            if byte == UInt8(ascii: ":") {
                state = .value
            } else if byte >= 0x80 {
                throw Failure.nonASCIIHeaderName
            } else if byte == UInt8(ascii: "\n") {
                state = .lineStart
            }
        case .value:
            if byte == UInt8(ascii: "\n") { state = .lineStart }
        }
    }
}
