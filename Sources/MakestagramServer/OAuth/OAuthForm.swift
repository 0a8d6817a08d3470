import Foundation
import Hummingbird
import MakestagramCore

/// The fields of an OAuth request: `application/x-www-form-urlencoded` (what OAuth specifies and most clients send),
/// or a JSON object (what some Mastodon clients send), or the query string for `GET /oauth/authorize`. A field may
/// repeat (`redirect_uris[]`); JSON arrays become repeated fields.
struct OAuthForm: Sendable {
    private(set) var fields: [String: [String]] = [:]

    /// The largest body read.
    static let maxBytes = 64 * 1024

    init(fields: [String: [String]]) {
        self.fields = fields
    }

    /// The first value of `name` (or of `name[]`), trimmed; nil when absent or empty.
    subscript(_ name: String) -> String? {
        let value = (fields[name] ?? fields[name + "[]"])?.first?.trimmingCharacters(in: .whitespacesAndNewlines)
        return value?.isEmpty == false ? value : nil
    }

    /// Every value of `name` and `name[]`.
    func all(_ name: String) -> [String] {
        (fields[name] ?? []) + (fields[name + "[]"] ?? [])
    }

    /// Parses `name=value&…` as HTML forms encode it (`+` is a space). A value whose escapes are not UTF-8 (or are
    /// malformed) is kept out and its name noted in ``invalid``: a form reader refuses it rather than take it as empty.
    init(urlEncoded text: Substring) {
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decode(parts[0]), !name.isEmpty else { continue }
            guard let value = parts.count > 1 ? decode(parts[1]) : "" else {
                invalid.append(name)
                continue
            }
            fields[name, default: []].append(value)
        }
    }

    /// Fields whose value was not valid UTF-8 once its escapes were decoded.
    private(set) var invalid: [String] = []

    /// The form a request's body holds.
    static func read(_ request: Request) async throws -> OAuthForm {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBytes)
        } catch {
            throw APIError.payloadTooLarge(limit: maxBytes)
        }
        let text = try TextInput.utf8(buffer.readableBytesView, field: "body")
        if type.hasPrefix("application/json") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw APIError.malformedBody("The body is not a JSON object.")
            }
            var fields: [String: [String]] = [:]
            for (name, value) in object {
                switch value {
                case let text as String: fields[name] = [text]
                case let number as NSNumber: fields[name] = [number.stringValue]
                case let list as [Any]:
                    for item in list {
                        switch item {
                        case let text as String: fields[name, default: []].append(text)
                        case let number as NSNumber: fields[name, default: []].append(number.stringValue)
                        case let object as [String: Any]:
                            // `media_attributes: [{id, description}]` reads as its form encoding does:
                            // `media_attributes[][id]`, `media_attributes[][description]`.
                            for (key, value) in object {
                                let text = (value as? String) ?? (value as? NSNumber)?.stringValue
                                if let text { fields["\(name)[][\(key)]", default: []].append(text) }
                            }
                        default: continue
                        }
                    }
                default: continue
                }
            }
            return OAuthForm(fields: fields)
        }
        if type.hasPrefix("multipart/form-data") {
            throw APIError.unsupportedMediaType("Send the fields form-encoded or as JSON.")
        }
        let form = OAuthForm(urlEncoded: Substring(text))
        if let field = form.invalid.first {
            throw APIError.invalidField(field: field, reason: "is not valid UTF-8 text (or a malformed % escape)")
        }
        return form
    }
}
