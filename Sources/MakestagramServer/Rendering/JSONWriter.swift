import Foundation
import Hummingbird
import MakestagramAPI
import NIOCore

/// Writes the API's JSON for posts straight into a buffer. Feed pages are the hottest responses, and Foundation's
/// generic `JSONEncoder` spent more time on them than the database did (see Benchmarks/HISTORY.md); the output is
/// the same JSON, checked against `JSONEncoder` in the tests.
struct JSONWriter {
    private(set) var buffer: ByteBuffer

    init(capacity: Int = 4096) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    mutating func raw(_ text: StaticString) {
        buffer.writeStaticString(text)
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { bytes in
            buffer.writeInteger(UInt8(ascii: "\""))
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<index]))
                switch byte {
                case UInt8(ascii: "\""): buffer.writeStaticString("\\\"")
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case 0x0A: buffer.writeStaticString("\\n")
                case 0x0D: buffer.writeStaticString("\\r")
                case 0x09: buffer.writeStaticString("\\t")
                default:
                    buffer.writeStaticString("\\u00")
                    buffer.writeInteger(Self.hex[Int(byte >> 4)])
                    buffer.writeInteger(Self.hex[Int(byte & 0xF)])
                }
                start = index + 1
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...]))
            buffer.writeInteger(UInt8(ascii: "\""))
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Decimal digits, written straight into the buffer (no String in between).
    mutating func integer<T: BinaryInteger>(_ value: T) {
        var magnitude = UInt64(value.magnitude)
        if value < 0 { buffer.writeInteger(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes of scratch, enough for 20 digits
        withUnsafeMutableBytes(of: &digits) { scratch in
            var index = scratch.count
            repeat {
                index -= 1
                scratch[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: scratch[index...]))
        }
    }

    /// Bytes that are already JSON (a rendered post).
    mutating func json(_ bytes: UnsafeRawBufferPointer) {
        buffer.writeBytes(bytes)
    }

    /// The elements of an array (without its brackets), each written by `write`, separated by commas.
    mutating func elements<Item>(_ items: some Sequence<Item>, _ write: (inout JSONWriter, Item) -> Void) {
        for (index, item) in items.enumerated() {
            if index > 0 { raw(",") }
            write(&self, item)
        }
    }

    mutating func bool(_ value: Bool) {
        raw(value ? Self.trueBytes : Self.falseBytes)
    }

    /// ISO 8601 in UTC to the second, as `JSONEncoder`'s `.iso8601` strategy writes it.
    mutating func date(_ date: Date) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        buffer.writeInteger(UInt8(ascii: "\""))
        integer(parts.tm_year + 1900)
        twoDigits(after: "-", parts.tm_mon + 1)
        twoDigits(after: "-", parts.tm_mday)
        twoDigits(after: "T", parts.tm_hour)
        twoDigits(after: ":", parts.tm_min)
        twoDigits(after: ":", parts.tm_sec)
        buffer.writeStaticString("Z\"")
    }

    private mutating func twoDigits(after separator: Unicode.Scalar, _ value: Int32) {
        buffer.writeInteger(UInt8(ascii: separator))
        buffer.writeInteger(UInt8(ascii: "0") + UInt8(value / 10))
        buffer.writeInteger(UInt8(ascii: "0") + UInt8(value % 10))
    }

    mutating func user(_ user: UserSummary) {
        raw("{\"id\":")
        integer(user.id)
        raw(",\"username\":")
        string(user.username)
        raw(",\"displayName\":")
        string(user.displayName)
        if let avatar = user.avatarURL {
            raw(",\"avatarURL\":")
            string(avatar)
        }
        if let follows = user.viewerFollows {
            raw(",\"viewerFollows\":")
            bool(follows)
        }
        raw("}")
    }

    mutating func variant(_ variant: ImageVariant) {
        raw("{\"url\":")
        string(variant.url)
        raw(",\"width\":")
        integer(variant.width)
        raw(",\"height\":")
        integer(variant.height)
        if let type = variant.type {
            raw(",\"type\":")
            string(type)
        }
        raw("}")
    }

    /// A post as it stands (the caller leaves out a hidden count with ``Post/seen(by:)``).
    mutating func post(_ post: Post) {
        postUpToLikeCount(post)
        if let likeCount = post.likeCount { likeCountField(likeCount) }
        postFromLikeCountToViewerHasLiked(post)
        bool(post.viewerHasLiked)
        postAfterViewerHasLiked(post)
    }

    /// A post's JSON before its like count, which not every reader may see (``Post/likeCountHidden``).
    mutating func postUpToLikeCount(_ post: Post) {
        raw("{\"id\":")
        integer(post.id)
        raw(",\"createdAt\":")
        date(post.createdAt)
        raw(",\"caption\":")
        string(post.caption)
        if let editedAt = post.editedAt {
            raw(",\"editedAt\":")
            date(editedAt)
        }
        if let original = post.original {
            raw(",\"original\":")
            string(original)
        }
        raw(",\"author\":")
        user(post.author)
        raw(",\"image\":")
        image(post.image)
        if post.photos.count > 1 {
            raw(",\"photos\":[")
            elements(post.photos) { $0.image($1) }
            raw("]")
        }
    }

    /// A post's photo (``PostImage``).
    mutating func image(_ image: PostImage) {
        raw("{\"width\":")
        integer(image.width)
        raw(",\"height\":")
        integer(image.height)
        raw(",\"full\":")
        variant(image.full)
        raw(",\"thumb\":")
        variant(image.thumb)
        raw(",\"variants\":[")
        elements(image.variants) { $0.variant($1) }
        raw("]")
        if let altText = image.altText {
            raw(",\"altText\":")
            string(altText)
        }
        raw("}")
    }

    /// The like count, as a field following another.
    mutating func likeCountField(_ count: Int) {
        raw(",\"likeCount\":")
        integer(count)
    }

    /// A post's JSON from after its like count up to the value of `viewerHasLiked`, the one field that depends on who
    /// reads it.
    mutating func postFromLikeCountToViewerHasLiked(_ post: Post) {
        raw(",\"likeCountHidden\":")
        bool(post.likeCountHidden)
        raw(",\"commentCount\":")
        integer(post.commentCount)
        raw(",\"viewerHasLiked\":")
    }

    /// A post's JSON after the value of `viewerHasLiked`.
    mutating func postAfterViewerHasLiked(_ post: Post) {
        raw(",\"likers\":[")
        elements(post.likers) { $0.string($1) }
        raw("],\"recentComments\":[")
        elements(post.recentComments) { $0.comment($1) }
        raw("],\"version\":")
        integer(post.version)
        raw("}")
    }

    /// The answer to a like or unlike, the hottest write.
    mutating func likeState(_ state: LikeState) {
        raw("{")
        if let likeCount = state.likeCount {
            raw("\"likeCount\":")
            integer(likeCount)
            raw(",")
        }
        raw("\"viewerHasLiked\":")
        bool(state.viewerHasLiked)
        raw(",\"likers\":[")
        elements(state.likers) { $0.string($1) }
        raw("],\"version\":")
        integer(state.version)
        raw("}")
    }

    /// A problem's fields in RFC 9457's order, the same in every answer (a dictionary-backed encoder orders them
    /// differently from one answer to the next).
    mutating func problem(_ problem: Problem) {
        raw("{\"type\":")
        string(problem.type)
        raw(",\"title\":")
        string(problem.title)
        raw(",\"status\":")
        integer(problem.status)
        raw(",\"detail\":")
        string(problem.detail)
        raw(",\"code\":")
        string(problem.code)
        raw("}")
    }

    mutating func comment(_ comment: Comment) {
        raw("{\"id\":")
        integer(comment.id)
        raw(",\"postId\":")
        integer(comment.postId)
        raw(",\"author\":")
        user(comment.author)
        raw(",\"text\":")
        string(comment.text)
        raw(",\"createdAt\":")
        date(comment.createdAt)
        raw("}")
    }

    mutating func page(_ page: Page<Post>) {
        self.page(page.items, next: page.nextCursor, newer: page.newerCursor) { $0.post($1) }
    }

    /// A page object: its items, each written by `write`, then its cursors.
    mutating func page<Item>(
        _ items: some Sequence<Item>, next: String?, newer: String?, writing write: (inout JSONWriter, Item) -> Void
    ) {
        raw("{\"items\":[")
        elements(items, write)
        raw("]")
        cursors(next: next, newer: newer)
        raw("}")
    }

    /// A page's cursor fields, those it has.
    mutating func cursors(next: String?, newer: String?) {
        if let next {
            raw(",\"nextCursor\":")
            string(next)
        }
        if let newer {
            raw(",\"newerCursor\":")
            string(newer)
        }
    }

    /// Bytes copied straight into the buffer by `body`, which gets room for `maximumBytes` and answers how many it
    /// wrote (a page of held posts: one reservation instead of a capacity check per part).
    mutating func copying(maximumBytes: Int, _ body: (UnsafeMutableRawBufferPointer) -> Int) {
        guard maximumBytes > 0 else { return }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: maximumBytes, body)
    }

    /// The two values of a boolean, also copied as they are into pages of rendered posts.
    static let trueBytes: StaticString = "true"
    static let falseBytes: StaticString = "false"
}

/// A response whose JSON body is already written.
struct WrittenJSON: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    var writer: JSONWriter

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: writer.buffer))
    }
}

extension Page where Item == Post {
    /// This page as a response written by ``JSONWriter``.
    var written: WrittenJSON {
        var writer = JSONWriter(capacity: 512 + items.count * 640)
        writer.page(self)
        return WrittenJSON(writer: writer)
    }
}

extension LikeState {
    /// This answer as a response written by ``JSONWriter``.
    var written: WrittenJSON {
        var writer = JSONWriter(capacity: 128)
        writer.likeState(self)
        return WrittenJSON(writer: writer)
    }
}

extension Post {
    /// This post as `viewer` may see it, as a response written by ``JSONWriter``.
    func written(for viewer: Int64, status: HTTPResponse.Status = .ok) -> WrittenJSON {
        var writer = JSONWriter(capacity: 1024)
        writer.post(seen(by: viewer))
        return WrittenJSON(status: status, writer: writer)
    }
}
