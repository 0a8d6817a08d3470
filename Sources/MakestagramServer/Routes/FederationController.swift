import Foundation
import HTTPTypes
import Hummingbird
import MakestagramFederation
import MakestagramStore
import ServiceLifecycle

/// The ActivityPub door: discovery (WebFinger, host-meta, NodeInfo), actor documents and their collections, and the
/// inboxes. It translates HTTP to ``Federation`` and back; what an activity does is done by the use cases.
struct FederationController<S: Store>: Sendable {
    let federation: Federation<S>

    /// The largest activity an inbox reads.
    static var maxActivityBytes: Int { 256 * 1024 }
    static var activityJSON: String { "application/activity+json; charset=utf-8" }

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(".well-known/webfinger") { request, _ in
            guard let resource = request.uri.queryParameters.get("resource"), !resource.isEmpty else {
                throw APIError.invalidParameter(name: "resource", reason: "Name an account: acct:user@host.")
            }
            guard let document = try await federation.webfinger(resource: resource) else {
                throw APIError.notFound("No account here is \(resource).")
            }
            return Self.json(document, type: "application/jrd+json; charset=utf-8")
        }
        routes.get(".well-known/host-meta") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/xrd+xml; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: federation.hostMeta)))
        }
        routes.get(".well-known/nodeinfo") { _, _ in Self.json(federation.nodeInfoLinks, type: "application/json") }
        routes.get("nodeinfo/2.1") { _, _ in
            Self.json(
                try await federation.nodeInfo(version: Self.version),
                type: "application/json; profile=\"http://nodeinfo.diaspora.software/ns/schema/2.1#\"")
        }
        routes.get("actor") { _, _ in Self.json(try await federation.instanceActor()) }
        routes.get("users/:username") { request, context in
            let username = try context.parameters.require("username")
            if !Self.wantsActivityStreams(request) {
                return Response(status: .found, headers: [.location: "/u/\(username)"])
            }
            guard let actor = try await federation.actor(username: username) else {
                throw APIError.notFound("There is no account \(username) here.")
            }
            return Self.json(actor)
        }
        for kind in ["followers", "following"] {
            routes.get("users/:username/\(kind)") { _, context in
                let username = try context.parameters.require("username")
                guard let document = try await federation.collection(username: username, kind: kind) else {
                    throw APIError.notFound("There is no account \(username) here.")
                }
                return Self.json(document)
            }
        }
        routes.get("users/:username/outbox") { request, context in
            let username = try context.parameters.require("username")
            let page = request.uri.queryParameters.get("page") == "true"
            let before = request.uri.queryParameters.get("max_id").flatMap { Int64($0) }
            guard let document = try await federation.outbox(username: username, page: page, before: before) else {
                throw APIError.notFound("There is no account \(username) here.")
            }
            return Self.json(document)
        }
        routes.post("inbox") { request, _ in try await receive(request) }
        routes.post("users/:username/inbox") { request, context in
            let username = try context.parameters.require("username")
            guard try await federation.actor(username: username) != nil else {
                throw APIError.notFound("There is no account \(username) here.")
            }
            return try await receive(request)
        }
        return routes
    }

    /// Hands an inbox POST to ``Federation/receive(body:request:)``: 202 when it was taken, the refusal's status
    /// when not.
    func receive(_ request: Request) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > Self.maxActivityBytes {
            throw APIError.payloadTooLarge(limit: Self.maxActivityBytes)
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Self.maxActivityBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError.payloadTooLarge(limit: Self.maxActivityBytes)
        } catch {
            throw APIError.clientAborted
        }
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        if headers["host"] == nil, let authority = request.head.authority { headers["host"] = authority }
        let signed = HTTPSignature.Request(
            method: request.method.rawValue, target: request.uri.description, headers: headers)
        do {
            try await federation.receive(body: Data(buffer: buffer), request: signed)
        } catch let refusal as InboxRefusal {
            let status: HTTPResponse.Status =
                switch refusal.status {
                case 401: .unauthorized
                case 403: .forbidden
                case 404: .notFound
                default: .badRequest
                }
            throw APIError.http(status, refusal.reason)
        }
        return Response(status: .accepted)
    }

    /// Whether a GET asks for an ActivityStreams document rather than a page.
    static func wantsActivityStreams(_ request: Request) -> Bool {
        guard let accept = request.headers[.accept]?.lowercased() else { return false }
        return accept.contains("application/activity+json")
            || (accept.contains("application/ld+json") && accept.contains("activitystreams"))
            || (accept.contains("application/json") && !accept.contains("text/html"))
    }

    static func json(_ object: JSONObject, type: String = activityJSON) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "max-age=60"],
            body: .init(byteBuffer: ByteBuffer(bytes: ActivityStreams.data(object))))
    }

    static var version: String { "0.4.0" }
}

/// Answers ActivityPub clients asking for a post page (`/p/:id`) with its `Note`, and lets browsers through to the
/// web client: a post's id is the same URL for both. A comment's id elsewhere (`/comments/:id`) answers them with its
/// reply, and sends browsers to its post's page.
struct PostDocumentMiddleware<S: Store>: RouterMiddleware {
    typealias Context = AppRequestContext
    let federation: Federation<S>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if request.method == .get, request.uri.path.hasPrefix("/comments/") {
            guard let id = Int64(request.uri.path.dropFirst(10)), let note = try await federation.note(commentID: id)
            else { throw APIError.notFound("There is no such comment.") }
            if FederationController<S>.wantsActivityStreams(request) { return FederationController<S>.json(note) }
            return Response(status: .found, headers: [.location: note["url"] as? String ?? "/"])
        }
        guard request.method == .get, request.uri.path.hasPrefix("/p/"),
            FederationController<S>.wantsActivityStreams(request)
        else { return try await next(request, context) }
        guard let id = Int64(request.uri.path.dropFirst(3)), let note = try await federation.note(postID: id) else {
            throw APIError.notFound("There is no such post.")
        }
        return FederationController<S>.json(note)
    }
}

/// Shuts the federation's HTTP client and deliveries down with the server.
struct FederationService<S: Store>: Service {
    let federation: Federation<S>

    func run() async throws {
        try? await gracefulShutdown()
        await federation.shutdown()
    }
}
