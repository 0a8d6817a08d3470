import Foundation
import HTTPTypes
import Hummingbird
import MakestagramStore

/// Mastodon's pagination: `max_id` (older than), `since_id` / `min_id` (newer than) and `limit` in, a `Link` header
/// with `rel="next"` (older) first and `rel="prev"` (newer) out. The IDs in the links are this server's page keys.
enum MastodonPaging {
    static let defaultLimit = 20
    static let maxLimit = 40

    static func request(_ request: Request) throws -> PageRequest {
        let query = request.uri.queryParameters
        var limit = defaultLimit
        if let text = query.get("limit") {
            guard let value = Int(text), value > 0 else {
                throw APIError.invalidParameter(name: "limit", reason: "must be a whole number from 1 to 40")
            }
            limit = min(value, maxLimit)
        }
        func key(_ name: String) throws -> Int64? {
            guard let text = query.get(name), !text.isEmpty else { return nil }
            guard let value = Int64(text.hasPrefix("c") ? String(text.dropFirst()) : text), value >= 0 else {
                throw APIError.invalidParameter(name: name, reason: "must be an ID from an earlier page")
            }
            return value
        }
        if let max = try key("max_id") { return PageRequest(position: .after(max), limit: limit) }
        if let min = try key("min_id") ?? key("since_id") {
            return PageRequest(position: .newerThan(min), limit: limit)
        }
        return PageRequest(position: .start, limit: limit)
    }

    /// The `Link` header for a page whose oldest key is `next` (nil at the end) and newest is `newest`.
    static func link(_ request: Request, origin: String, next: Int64?, newest: Int64?) -> String? {
        var others = request.uri.queryParameters.filter { !["max_id", "min_id", "since_id"].contains(String($0.key)) }
            .map { "\($0.key)=\($0.value)" }
        others.sort()
        let base = origin + request.uri.path + "?" + others.map { $0 + "&" }.joined()
        var links: [String] = []
        if let next { links.append("<\(base)max_id=\(next)>; rel=\"next\"") }
        if let newest { links.append("<\(base)min_id=\(newest)>; rel=\"prev\"") }
        return links.isEmpty ? nil : links.joined(separator: ", ")
    }
}

/// A Mastodon answer: JSON from ``Mastodon/encode(_:)``, with a `Link` header for lists.
struct MastodonResponse: ResponseGenerator {
    var body: Data
    var status: HTTPResponse.Status = .ok
    var link: String?

    init<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok, link: String? = nil) throws {
        body = try Mastodon.encode(value)
        self.status = status
        self.link = link
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let link { headers[HTTPField.Name("Link")!] = link }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
