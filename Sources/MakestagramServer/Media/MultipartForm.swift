import Foundation
import HTTPTypes
import Hummingbird
import MakestagramCore
import MultipartKit

/// The parts of a `multipart/form-data` body, read as it streams in and refused (413) as soon as it passes the limit,
/// so an oversized upload is never held whole.
struct MultipartForm {
    /// One form field: its bytes and, for files, the declared file name (informational only).
    struct Part {
        var data = ByteBuffer()
        var fileName: String?
    }

    private(set) var parts: [String: Part] = [:]

    /// The text of `field` (nil when absent); 422 when it is not UTF-8.
    func text(_ field: String) throws -> String? {
        try parts[field].map { try TextInput.utf8($0.data.readableBytesView, field: field) }
    }

    /// The photo attached as `field`; 422 naming the field when it is missing, or when the file attached is empty
    /// (a picker that failed to read the photo sends its name with no bytes).
    func photo(_ field: String) throws -> ByteBuffer {
        guard let part = parts[field] else {
            throw APIError.invalidField(field: field, reason: "attach the photo as the form field '\(field)'")
        }
        guard part.data.readableBytes > 0 else {
            throw APIError.invalidField(field: field, reason: "the attached file is empty")
        }
        return part.data
    }

    /// Reads the request body. Throws 415 when it is not multipart/form-data, 413 when it is over `limit` bytes,
    /// 400 when it is not well-formed.
    static func read(_ request: Request, limit: Int) async throws -> MultipartForm {
        guard let contentType = request.headers[.contentType], let boundary = boundary(of: contentType) else {
            throw APIError.unsupportedMediaType(
                "Send the photo as multipart/form-data with fields 'image' and 'caption'.")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError.payloadTooLarge(limit: limit)
        }
        let collector = Collector()
        let parser = MultipartParser(boundary: boundary)
        var headerGuard = MultipartHeaderGuard(boundary: boundary)
        parser.onHeader = { name, value in collector.header(name, value) }
        parser.onBody = { buffer in collector.current.data.writeBuffer(&buffer) }
        parser.onPartComplete = { collector.complete() }
        var received = 0
        var body = request.body.makeAsyncIterator()
        while true {
            let next: ByteBuffer?
            do {
                next = try await body.next()
            } catch {
                // The connection ended or broke before the body was whole.
                throw APIError.clientAborted
            }
            guard let chunk = next else { break }
            received += chunk.readableBytes
            guard received <= limit else { throw APIError.payloadTooLarge(limit: limit) }
            do {
                try headerGuard.check(chunk)
                try parser.execute(chunk)
            } catch {
                throw APIError.malformedBody("The multipart/form-data body is not well-formed.")
            }
        }
        guard collector.sawPart else {
            throw APIError.malformedBody("The multipart/form-data body has no parts.")
        }
        return MultipartForm(parts: collector.parts)
    }

    /// The `boundary` parameter of a multipart/form-data content type.
    static func boundary(of contentType: String) -> String? {
        let fields = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.first?.lowercased() == "multipart/form-data" else { return nil }
        for field in fields.dropFirst() {
            let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return (1...70).contains(value.count) ? value : nil
            }
        }
        return nil
    }

    /// Gathers parts as the parser reports them.
    private final class Collector {
        var parts: [String: Part] = [:]
        var current = Part()
        var currentName: String?
        var sawPart = false

        func header(_ name: String, _ value: String) {
            guard name.lowercased() == "content-disposition" else { return }
            currentName = Self.parameter("name", in: value)
            current.fileName = Self.parameter("filename", in: value)
        }

        func complete() {
            sawPart = true
            if let currentName, parts[currentName] == nil { parts[currentName] = current }
            current = Part()
            currentName = nil
        }

        static func parameter(_ key: String, in value: String) -> String? {
            for field in value.split(separator: ";").dropFirst() {
                let pair = field.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0].lowercased() == key {
                    return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
            }
            return nil
        }
    }
}
