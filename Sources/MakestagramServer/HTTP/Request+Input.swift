import Foundation
import Hummingbird
import MakestagramAPI
import MakestagramCore
import MakestagramStore

extension Request {
    /// The largest JSON body any endpoint accepts.
    static let maxJSONBytes = 64 * 1024

    /// Decodes a JSON body, answering 415 when it is not declared as JSON and 400 with the reason (which field,
    /// what was wrong) when it cannot be read.
    func decodeJSON<T: Decodable>(_ type: T.Type, fields: Set<String>? = nil) async throws -> T {
        guard Self.isJSON(headers[.contentType]) else {
            throw APIError.unsupportedMediaType("Send the body as JSON, with 'Content-Type: application/json'.")
        }
        if let length = headers[.contentLength].flatMap(Int.init), length > Self.maxJSONBytes {
            throw APIError.payloadTooLarge(limit: Self.maxJSONBytes)
        }
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: Self.maxJSONBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError.payloadTooLarge(limit: Self.maxJSONBytes)
        } catch {
            throw APIError.clientAborted
        }
        // Text that is not UTF-8 is refused as such (JSONDecoder would call it malformed JSON, or repair it).
        _ = try TextInput.utf8(buffer.readableBytesView, field: "body")
        if let fields {
            // A patch names what it changes: at least one field, and only fields it knows.
            let object = (try? JSONSerialization.jsonObject(with: Data(buffer: buffer))) as? [String: Any]
            let sent = Set(object?.keys ?? [:].keys)
            if let unknown = sent.subtracting(fields).sorted().first {
                throw APIError.malformedBody(
                    "There is no field '\(unknown)': send \(fields.sorted().joined(separator: ", ")).")
            }
            if object != nil, sent.isEmpty {
                throw APIError.malformedBody("Send at least one of \(fields.sorted().joined(separator: ", ")).")
            }
        }
        do {
            return try JSONCoding.decoder().decode(T.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw APIError.malformedBody(Self.describe(error))
        } catch {
            throw APIError.malformedBody("The body is not valid JSON.")
        }
    }

    /// Whether a content type is JSON: `application/json` or `application/<anything>+json`, with any parameters.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1)[0].trimmingCharacters(in: .whitespaces)
            .lowercased()
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "Missing field '\(path(context.codingPath + [key]))'."
        case .typeMismatch(let type, let context):
            return "Field '\(path(context.codingPath))' must be of type \(type)."
        case .valueNotFound(let type, let context):
            return "Field '\(path(context.codingPath))' must be a \(type), not null."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "The body is not valid JSON." : "Field '\(path(context.codingPath))' is not valid."
        @unknown default:
            return "The body does not have the expected form."
        }
    }

    /// `limit` and `cursor` query parameters as a page request for `list`.
    func pageRequest(list: String) throws -> PageRequest {
        let query = uri.query ?? ""
        var limit = Limits.defaultPageSize
        if let text = Self.queryValue("limit", in: query) {
            guard let value = Int(text), (1...Limits.maxPageSize).contains(value) else {
                throw APIError.invalidParameter(name: "limit", reason: "must be a whole number from 1 to 100")
            }
            limit = value
        }
        let position = try Self.queryValue("cursor", in: query).map { try Cursor.decode($0, list: list) } ?? .start
        return PageRequest(position: position, limit: limit)
    }

    /// The first value of a query parameter, percent-decoded as `URI.queryParameters` decodes it (read from the
    /// query string itself: every list request asks, and building the whole parameter dictionary showed in the
    /// timeline's profile).
    static func queryValue(_ name: String, in query: String) -> String? {
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            guard pair[..<equals].elementsEqual(name.utf8) else { continue }
            guard equals < pair.endIndex else { return "" }
            let value = pair[pair.index(after: equals)...]
            return percentDecoded(value) ?? String(Substring(value))
        }
        return nil
    }

    /// The text of a query parameter that a person typed (a search): percent-decoded (`+` a space, as forms send it)
    /// and refused with 400 when it is not UTF-8 or an escape is malformed, never repaired.
    func queryText(_ name: String) throws -> String? {
        let query = uri.query ?? ""
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            guard pair[..<equals].elementsEqual(name.utf8) else { continue }
            guard equals < pair.endIndex else { return "" }
            let value = Substring(pair[pair.index(after: equals)...]).replacingOccurrences(of: "+", with: " ")
            guard let bytes = Self.percentDecodedBytes(value.utf8), let text = String(validating: bytes, as: UTF8.self)
            else { throw APIError.invalidParameter(name: name, reason: "is not valid UTF-8 text") }
            return text
        }
        return nil
    }

    /// `%XX` escapes decoded, invalid UTF-8 repaired; nil for a malformed escape (the value is then taken as sent).
    private static func percentDecoded(_ value: Substring.UTF8View) -> String? {
        percentDecodedBytes(value).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes `%XX` escapes stand for; nil for a malformed escape.
    private static func percentDecodedBytes<Bytes: Collection<UInt8>>(_ value: Bytes) -> [UInt8]? {
        guard value.contains(UInt8(ascii: "%")) else { return Array(value) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.count)
        var index = value.startIndex
        while index < value.endIndex {
            guard value[index] == UInt8(ascii: "%") else {
                bytes.append(value[index])
                index = value.index(after: index)
                continue
            }
            let high = value.index(after: index)
            guard high < value.endIndex, value.index(after: high) < value.endIndex,
                let first = hexDigit(value[high]), let second = hexDigit(value[value.index(after: high)])
            else { return nil }
            bytes.append(first << 4 | second)
            index = value.index(high, offsetBy: 2)
        }
        return bytes
    }

    /// The value of one hexadecimal digit (no sign, unlike `UInt8(_:radix:)`).
    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension AppRequestContext {
    /// A numeric ID path parameter; an ID that cannot exist is simply not found.
    func id(_ name: String, of what: String) throws -> Int64 {
        guard let text = parameters.get(name), let id = Int64(text), id > 0 else { throw APIError.notFound(what) }
        return id
    }

    /// A username path parameter, in its stored form (``TextRules/normalizedUsername(_:)``); a name that cannot
    /// exist is not found.
    func username(_ name: String = "username") throws -> String {
        guard let text = parameters.get(name)?.removingPercentEncoding.map(TextRules.normalizedUsername),
            Limits.isValidUsername(text) || Limits.isRemoteUsername(text)
        else { throw APIError.notFound("user") }
        return text
    }
}

extension UserSummary: ResponseEncodable {}
extension UserProfile: ResponseEncodable {}
extension Post: ResponseEncodable {}
extension UploadedPhoto: ResponseEncodable {}
extension Comment: ResponseEncodable {}
extension FollowState: ResponseEncodable {}
extension MuteState: ResponseEncodable {}
extension BlockState: ResponseEncodable {}
extension PasswordChanged: ResponseEncodable {}
extension SessionInfo: ResponseEncodable {}
extension ActivityUnread: ResponseEncodable {}
extension AuthResponse: ResponseEncodable {}
extension Page: ResponseEncodable {}
extension EventTicket: ResponseEncodable {}
