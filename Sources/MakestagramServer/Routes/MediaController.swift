import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import NIOPosix

/// Serves stored photos: exact type, no sniffing, cached forever (a name is never reused for other bytes).
struct MediaController: Sendable {
    let media: any MediaStorage

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("media/:name", use: file)
        routes.head("media/:name", use: file)
        return routes
    }

    @Sendable func file(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let name = context.parameters.get("name"), FolderMediaStorage.isValidName(name) else {
            throw APIError.notFound("file")
        }
        let etag = "\"\(name.prefix(32))\""
        var headers: HTTPFields = [
            .contentType: ImageVariant.mediaType(ofFile: name),
            .cacheControl: "public, max-age=31536000, immutable",
            .eTag: etag,
        ]
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        guard let data = try await NIOThreadPool.singleton.runIfActive({ [media] in try media.read(name) }) else {
            throw APIError.notFound("file")
        }
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == etag || $0.trimmingCharacters(in: .whitespaces) == "*"
            })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(data.count)
        let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        return Response(status: .ok, headers: headers, body: body)
    }
}
