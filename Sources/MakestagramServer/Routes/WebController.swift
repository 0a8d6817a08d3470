import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramWeb
import Photos

/// Serves the web client: `index.html` for every page of the app (the client routes in the browser) and the files
/// under `/app/` it loads. The files ship as resources, are read once at start-up and revalidated by ETag.
struct WebController: Sendable {
    /// One file of the client, ready to send.
    struct Asset: Sendable {
        let body: ByteBuffer
        let contentType: String
        let etag: String
    }

    /// The client's files by name (`main.js`), without `index.html`.
    let assets: [String: Asset]
    /// The page every app URL answers with.
    let index: Asset

    /// The paths the browser-side router knows; each answers with `index.html`.
    static let pages = [
        "", "login", "signup", "new", "search", "activity", "settings", "moderation", "u/:username", "p/:id",
        "t/:tag",
    ]

    /// Reads the client's files (MakestagramWeb); `maxUploadBytes` and `maxPhotosPerPost` go into its constants, so
    /// that the composer can refuse a file that is too big, or one photo too many, before sending anything.
    init(maxUploadBytes: Int, maxPhotosPerPost: Int = Post.photoLimit) throws {
        var assets: [String: Asset] = [:]
        for (name, data) in try WebClient.files(
            maxUploadBytes: maxUploadBytes, maxPhotosPerPost: maxPhotosPerPost,
            heifBrands: Array(ImageFormat.heifBrands))
        {
            assets[name] = Self.asset(data, name: name)
        }
        guard let index = assets.removeValue(forKey: "index.html") else { throw WebClient.LoadError.missing }
        self.assets = assets
        self.index = index
    }

    static func asset(_ data: Data, name: String) -> Asset {
        let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
        return Asset(body: ByteBuffer(bytes: data), contentType: contentType(of: name), etag: "\"\(digest)\"")
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last ?? "" {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json", "webmanifest": "application/manifest+json"
        default: "application/octet-stream"
        }
    }

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        for page in Self.pages {
            routes.get(RouterPath(page)) { request, _ in respond(request, with: index, isPage: true) }
        }
        routes.get("app/:name") { request, context in
            guard let name = context.parameters.get("name"), let asset = assets[name] else {
                throw APIError.notFound("file")
            }
            return respond(request, with: asset, isPage: false)
        }
        routes.get("favicon.ico") { request, _ in
            guard let icon = assets["icon.svg"] else { throw APIError.notFound("file") }
            return respond(request, with: icon, isPage: false)
        }
        return routes
    }

    /// For a browser asking for a page the app does not have (a mistyped link): the app with status 404, which shows
    /// "Page not found" with a way on. Requests for the API, media and files, and those that do not accept HTML, get
    /// the problem as before.
    @Sendable func notFoundPage(_ request: Request) -> Response? {
        guard request.method == .get || request.method == .head,
            request.headers[.accept]?.contains("text/html") == true
        else { return nil }
        let path = request.uri.path
        for prefix in ["/api/", "/media/", "/app/"] where path.hasPrefix(prefix) { return nil }
        return respond(request, with: index, isPage: true, status: .notFound)
    }

    /// The page's security policy: only this origin's scripts, styles, images (and previews of the photo being
    /// uploaded), and no framing.
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    func respond(_ request: Request, with asset: Asset, isPage: Bool, status: HTTPResponse.Status = .ok) -> Response {
        var headers: HTTPFields = [
            .contentType: asset.contentType, .eTag: asset.etag, .cacheControl: "no-cache",
        ]
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        if isPage {
            headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
            headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        }
        if status == .ok, let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(asset.body.readableBytes)
        return Response(status: status, headers: headers, body: .init(byteBuffer: asset.body))
    }
}
