import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramCore
import MakestagramStore
import NIOCore
import NIOPosix
import ZIPFoundation

/// "Export my data": a ZIP of everything the user put in, for the right of access (and to take it elsewhere).
///
/// The archive is written to a temporary file in the data folder, entry by entry (one photo in memory at a time, JSON
/// lists of metadata), then streamed to the client in chunks; the file's name is removed as soon as it is open, so
/// nothing stays behind whether the download ends, fails or the server crashes. Rate limited (`exports`).
struct ExportController<S: Store>: Sendable {
    let store: S
    let media: any MediaStorage
    let limits: ClientLimits
    /// Where archives are written while they are made.
    let temporaryDirectory: URL

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("me/export", use: export)
        return routes
    }

    @Sendable func export(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        try limits.take(.exports, user: user.id)
        guard let data = try await store.dataExport(userID: user.id) else { throw APIError.unauthorized }
        let file = try await NIOThreadPool.singleton.runIfActive { [media, temporaryDirectory] in
            try Self.writeArchive(data, media: media, in: temporaryDirectory)
        }
        context.logger.info("data exported", metadata: ["user": "\(user.id)", "posts": "\(data.posts.count)"])
        let date = ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withFullDate])
        var headers: HTTPFields = [
            .contentType: "application/zip",
            .contentDisposition: "attachment; filename=\"makestagram-\(user.username)-\(date).zip\"",
            .cacheControl: "no-store",
        ]
        headers[.contentLength] = String(file.size)
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(contentLength: file.size) { writer in
                defer { try? file.handle.close() }
                while true {
                    let chunk = try await NIOThreadPool.singleton.runIfActive {
                        try file.handle.read(upToCount: 256 * 1024) ?? Data()
                    }
                    if chunk.isEmpty { break }
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
                try await writer.finish(nil)
            })
    }

    /// Removes archives left by a crash while they were written (older than an hour: a younger one may be another
    /// instance's, being written now).
    static func sweep(_ directory: URL) {
        let cutoff = Date().addingTimeInterval(-3600)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix("export-") {
            let url = directory.appendingPathComponent(name)
            let modified = (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
            if let modified, modified < cutoff { try? FileManager.default.removeItem(at: url) }
        }
    }

    /// An open archive whose name is already removed.
    struct OpenArchive: @unchecked Sendable {
        let handle: FileHandle
        let size: Int
    }

    /// Writes the archive and answers it open, its name removed.
    static func writeArchive(_ data: UserDataExport, media: any MediaStorage, in directory: URL) throws -> OpenArchive {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("export-\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: url) }
        let archive = try Archive(url: url, accessMode: .create)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        func add(_ path: String, _ bytes: Data, compress: Bool = true) throws {
            try archive.addEntry(
                with: path, type: .file, uncompressedSize: Int64(bytes.count),
                compressionMethod: compress ? .deflate : .none
            ) { position, size in
                bytes.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        try add("README.txt", Data(readme(data).utf8))
        try add("profile.json", try encoder.encode(data.profile))
        try add("posts.json", try encoder.encode(data.posts.map(ExportedPostEntry.init)))
        try add("comments.json", try encoder.encode(data.comments))
        try add("following.json", try encoder.encode(data.following))
        try add("followers.json", try encoder.encode(data.followers))
        try add("muted.json", try encoder.encode(data.muted))
        try add("blocked.json", try encoder.encode(data.blocked))
        if let avatar = data.avatarFile, let bytes = try media.read(avatar) {
            try add("avatar.jpg", bytes, compress: false)
        }
        for post in data.posts {
            // A file missing from the folder (a damaged copy) leaves its post in posts.json without a photo.
            for (index, file) in ([post.fileName] + post.morePhotos.map(\.fileName)).enumerated() {
                guard let bytes = try media.read(file) else { continue }
                try add(ExportedPostEntry.path(post: post.id, index: index), bytes, compress: false)
            }
        }
        // Open, then the deferred removal takes the name: the bytes live until the handle closes.
        let handle = try FileHandle(forReadingFrom: url)
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 0)
        return OpenArchive(handle: handle, size: Int(size))
    }

    /// A post as posts.json lists it: its photos by their paths in the archive; `photo`, `width`, `height` and
    /// `altText` are the first's (as before albums), `photos` lists them all.
    struct ExportedPostEntry: Encodable {
        struct Photo: Encodable {
            var photo: String
            var width: Int
            var height: Int
            var altText: String?
        }

        var id: Int64
        var createdAt: Date
        var caption: String
        var editedAt: Date?
        var likeCount: Int
        var commentCount: Int
        var width: Int
        var height: Int
        var photo: String
        var altText: String?
        var photos: [Photo]

        /// Where the archive keeps the photo at `index` (0 is the first) of a post.
        static func path(post: Int64, index: Int) -> String {
            index == 0 ? "photos/\(post).jpg" : "photos/\(post)-\(index + 1).jpg"
        }

        init(_ post: UserDataExport.ExportedPost) {
            altText = post.altText
            id = post.id
            createdAt = post.createdAt
            caption = post.caption
            editedAt = post.editedAt
            likeCount = post.likeCount
            commentCount = post.commentCount
            width = post.width
            height = post.height
            photo = Self.path(post: post.id, index: 0)
            photos =
                [Photo(photo: photo, width: post.width, height: post.height, altText: post.altText)]
                + post.morePhotos.enumerated().map { index, more in
                    Photo(
                        photo: Self.path(post: post.id, index: index + 1), width: more.width, height: more.height,
                        altText: more.altText)
                }
        }
    }

    static func readme(_ data: UserDataExport) -> String {
        """
        Your Makestagram data, as @\(data.profile.username) on \(Date().formatted(date: .long, time: .shortened)).

        profile.json    your profile: username, name, bio, counts, when you joined
        posts.json      your \(data.posts.count) posts, oldest first: caption, dates, like and comment counts, and
                        every photo with its alt text
        photos/         each post's photos (JPEG, at most 1080 px wide, without location or camera data): <post>.jpg
                        for the first, <post>-2.jpg, <post>-3.jpg, … for the others of an album
        avatar.jpg      your profile picture, if you have one
        comments.json   the \(data.comments.count) comments you wrote, on anyone's posts
        following.json  the people you follow
        followers.json  the people who follow you
        muted.json      the people you mute (their posts and activity stay out of yours)
        blocked.json    the people you block (neither of you sees the other)

        """
    }
}
