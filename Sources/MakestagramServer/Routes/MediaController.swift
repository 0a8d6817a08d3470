import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramCore
import MakestagramStore
import NIOPosix
import Synchronization

/// Serves stored photos: exact type, no sniffing, cached forever (a name is never reused for other bytes). The files
/// of users hidden from everyone (suspended, or being deleted) answer 404 like everything else of theirs; those of
/// private accounts' posts are served only at URLs signed for their readers (``MediaSigning``), and answer 404
/// without a good signature.
struct MediaController<S: Store>: Sendable {
    let media: any MediaStorage
    let store: S
    /// The hidden users' files, for the version of who is hidden they were read at.
    private let hidden = HiddenFiles()
    /// The private accounts' files, for the version of who is private they were read at.
    private let guarded = HiddenFiles()

    final class HiddenFiles: Sendable {
        let known = Mutex<(version: UInt64, files: Set<String>)?>(nil)
    }

    /// Makes a missing file again when it is one of another server's photos removed to save space (federation on).
    let restore: (@Sendable (String) async -> Bool)?

    init(media: any MediaStorage, store: S, restore: (@Sendable (String) async -> Bool)? = nil) {
        self.media = media
        self.store = store
        self.restore = restore
    }

    /// Whether `name` belongs to a user hidden from everyone. Free while nobody is (the usual case); otherwise their
    /// files are read once per change of who is hidden.
    func isHidden(_ name: String) async throws -> Bool {
        let summary = store.hiddenUsers
        guard !summary.isEmpty else { return false }
        if let known = hidden.known.withLock({ $0 }), known.version == summary.version {
            return known.files.contains(name)
        }
        let files = try await store.hiddenUsersMedia()
        hidden.known.withLock { $0 = (summary.version, files) }
        return files.contains(name)
    }

    /// Whether `name` is a file of a private account's post, served only at a signed URL (``MediaSigning``). Free
    /// while no account is private; otherwise their files are read once per change of who is private or of their
    /// files.
    func isGuarded(_ name: String) async throws -> Bool {
        let summary = store.privateUsers
        guard !summary.isEmpty else { return false }
        if let known = guarded.known.withLock({ $0 }), known.version == summary.version {
            return known.files.contains(name)
        }
        let files = try await store.privateUsersMedia()
        guarded.known.withLock { $0 = (summary.version, files) }
        return files.contains(name)
    }

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("media/:name", use: file)
        routes.head("media/:name", use: file)
        return routes
    }

    @Sendable func file(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let name = context.parameters.get("name"), FolderMediaStorage.isValidName(name),
            try await !isHidden(name)
        else {
            throw APIError.notFound("file")
        }
        // A private account's photo: only at a URL signed for those who may see it, and kept by no shared cache.
        let isGuarded = try await isGuarded(name)
        if isGuarded {
            guard let token = request.uri.queryParameters.get(MediaSigning.parameter),
                store.mediaSigning.verify(file: name, token: token)
            else { throw APIError.notFound("file") }
        }
        let etag = "\"\(name.prefix(32))\""
        var headers: HTTPFields = [
            .contentType: ImageVariant.mediaType(ofFile: name),
            .cacheControl: isGuarded ? "private, max-age=86400" : "public, max-age=31536000, immutable",
            .eTag: etag,
        ]
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        var read = try await NIOThreadPool.singleton.runIfActive { [media] in try media.read(name) }
        if read == nil, let restore, await restore(name) {
            read = try await NIOThreadPool.singleton.runIfActive { [media] in try media.read(name) }
        }
        guard let data = read else { throw APIError.notFound("file") }
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
