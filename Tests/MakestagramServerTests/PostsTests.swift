import Foundation
import HTTPTypes
import HummingbirdTesting
import MakestagramAPI
import MakestagramStore
import MakestagramStoreSQLite
import NIOCore
import Photos
import ServerTestSupport
import TestFixtures
import Testing

@Suite struct PostsTests {
    func mediaFiles(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("media").path).sorted()
    }

    func fetch(_ client: any TestClientProtocol, _ url: String) async throws -> Data {
        let response = try await client.send(.get, url)
        #expect(response.status == .ok)
        return Data(buffer: response.body)
    }

    @Test(arguments: Fixtures.acceptedPhotos)
    func acceptedPhotosAreServedUprightWithoutMetadata(photo: String) async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let post = try await client.post(photo, caption: "  \(photo)  ", as: alice)
            #expect(post.caption == photo)
            #expect(post.author.username == "alice" && post.likeCount == 0 && !post.viewerHasLiked)
            #expect(!post.image.variants.isEmpty && post.image.variants.allSatisfy { $0.type == "image/webp" })
            #expect(post.image.full.type == "image/jpeg")
            for variant in [post.image.full, post.image.thumb] + post.image.variants {
                let data = try await fetch(client, variant.url)
                let header = try data.withUnsafeBytes { try ImageHeader.read($0) }
                #expect(header.metadata.isEmpty, "\(variant.url) keeps \(header.metadata)")
                #expect(header.orientation == 1)
                #expect(data.range(of: Data("GPS".utf8)) == nil && data.range(of: Data("Exif".utf8)) == nil)
                #expect(header.width == variant.width && header.height == variant.height)
            }
            #expect(post.image.full.width <= 1080)
            #expect(post.image.thumb.width == 320 && post.image.thumb.height == 320)
        }
    }

    @Test func phonePhotoIsUprightAndHEICIsAccepted() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let phone = try await client.post("phone-gps-rotated.jpg", as: alice)
            #expect(phone.image.width == 2688 && phone.image.height == 4032)
            #expect(phone.image.full.width == 1080 && phone.image.full.height == 1620)
            #expect(phone.image.variants.map(\.width) == [320, 640, 1080, 1440])
            let heic = try await client.post("chelsea-gps.heic", as: alice)
            #expect(heic.image.full.width > 0)
        }
    }

    @Test func theAuthorsCropIsApplied() async throws {
        try await TestServer.run { client, folder in
            let alice = try await client.signUp("alice")
            let portrait = try await client.post("phone-gps-rotated.jpg", crop: "portrait", as: alice)
            #expect(portrait.image.width == 2688 && portrait.image.height == 3360)
            #expect(portrait.image.full.width == 1080 && portrait.image.full.height == 1350)
            #expect(portrait.image.variants.map(\.height) == [400, 800, 1350, 1800])
            let served = try await client.send(.get, portrait.image.variants[0].url)
            #expect(served.headers[.contentType] == "image/webp")
            let square = try await client.post("hubble.jpg", crop: "square", as: alice)
            #expect(square.image.width == 872 && square.image.height == 872)
            let wide = try await client.post("hubble.jpg", crop: "landscape", as: alice)
            #expect(wide.image.width == 1000 && wide.image.height == 524)
            let whole = try await client.post("hubble.jpg", crop: "original", as: alice)
            #expect(whole.image.width == 1000 && whole.image.height == 872)
            let files = try mediaFiles(folder).count
            for bad in ["4:5", "Portrait", "", String(repeating: "x", count: 5000)] {
                let response = try await client.upload("hubble.jpg", crop: bad, as: alice)
                #expect(response.status == .unprocessableContent, "crop \(bad.prefix(10))")
                #expect(String(buffer: response.body).contains("crop"))
            }
            #expect(try mediaFiles(folder).count == files, "a refused crop stores nothing")
        }
    }

    @Test func badUploadsAreRefusedAndStoreNothing() async throws {
        try await TestServer.run({
            $0.maxUploadBytes = 500_000
            $0.maxPixels = 500_000
        }) { client, folder in
            let alice = try await client.signUp("alice")
            func refused(_ photo: String, caption: String = "", data: Data? = nil) async throws -> Problem {
                let response = try await client.upload(photo, caption: caption, as: alice, data: data)
                return try JSONDecoder().decode(Problem.self, from: Data(buffer: response.body))
            }
            #expect(try await refused("not-an-image.jpg").status == 415)
            #expect(try await refused("truncated.jpg").status == 422)
            #expect(try await refused("phone-gps-rotated.jpg").status == 413)  // 956 kB > 500 kB
            #expect(try await refused("zeros.jpg", data: Data(count: 10)).status == 415)
            let pixels = try await refused("hubble.jpg")  // 1000 × 872 = 872,000 pixels, 392 kB
            #expect(pixels.status == 422 && pixels.code == "image_too_large")
            let caption = try await refused("chelsea.jpg", caption: String(repeating: "é", count: 2201))
            #expect(caption.status == 422 && caption.detail.contains("caption"))
            let empty = try await refused("chelsea.jpg", caption: "", data: Data())
            #expect(empty.status == 422 && empty.detail.contains("empty"))
            let notMultipart = try await client.problem(
                .post, "/api/v1/posts", as: alice, headers: [.contentType: "text/plain"],
                body: ByteBuffer(string: "{}"))
            #expect(notMultipart.status == 415)
            // JSON is a post of photos uploaded first: it needs them.
            let noUploads = try await client.problem(
                .post, "/api/v1/posts", as: alice, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: "{}"))
            #expect(noUploads.status == 400)
            let emptyAlbum = try await client.problem(
                .post, "/api/v1/posts", as: alice, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"uploads":[]}"#))
            #expect(emptyAlbum.status == 422 && emptyAlbum.detail.contains("at least one photo"))
            #expect(try mediaFiles(folder).isEmpty)
            let profile: UserProfile = try await client.call(.get, "/api/v1/users/alice", as: alice)
            #expect(profile.postCount == 0)
            // A caption of exactly 2,200 characters is fine.
            _ = try await client.post("chelsea.jpg", caption: String(repeating: "é", count: 2200), as: alice)
        }
    }

    @Test func truncatedPhotoIsInvalidAndLeavesNothing() async throws {
        try await TestServer.run { client, folder in
            let alice = try await client.signUp("alice")
            let response = try await client.upload("truncated.jpg", as: alice)
            let problem = try JSONDecoder().decode(Problem.self, from: Data(buffer: response.body))
            #expect(problem.status == 422 && problem.code == "invalid_image")
            #expect(try mediaFiles(folder).isEmpty)
        }
    }

    @Test func chunkedUploadOverTheLimitIsCutOff() async throws {
        try await TestServer.run({ $0.maxUploadBytes = 100_000 }) { client, folder in
            let alice = try await client.signUp("alice")
            let (body, contentType) = Multipart.body(
                fields: [:], file: ("image", "big.jpg", Fixtures.photo("hubble.jpg")))
            var headers = alice.auth
            headers[.contentType] = contentType
            headers[.transferEncoding] = "chunked"
            let response = try await client.executeRequest(
                uri: "/api/v1/posts", method: .post, headers: headers, body: body)
            #expect(response.status == .contentTooLarge)
            #expect(try mediaFiles(folder).isEmpty)
        }
    }

    @Test func onlyTheAuthorDeletesAndEverythingGoes() async throws {
        try await TestServer.run { client, folder in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let post = try await client.post("chelsea.jpg", as: alice)
            _ = try await client.send(.put, "/api/v1/posts/\(post.id)/like", as: bob)
            _ = try await client.send(
                .post, "/api/v1/posts/\(post.id)/comments", as: bob, json: NewCommentRequest(text: "hi"))
            #expect(try mediaFiles(folder).count == 4, "full, thumb and the variants 320 and 451 px wide")
            #expect(try await client.problem(.delete, "/api/v1/posts/\(post.id)", as: bob).status == 403)
            #expect(try await client.send(.get, "/api/v1/posts/\(post.id)", as: bob).status == .ok)
            #expect(try await client.send(.delete, "/api/v1/posts/\(post.id)", as: alice).status == .noContent)
            #expect(try await client.problem(.get, "/api/v1/posts/\(post.id)", as: alice).status == 404)
            #expect(try await client.problem(.get, "/api/v1/posts/\(post.id)/comments", as: alice).status == 404)
            #expect(try await client.problem(.delete, "/api/v1/posts/\(post.id)", as: alice).status == 404)
            #expect(try mediaFiles(folder).isEmpty)
            #expect(try await client.problem(.get, post.image.full.url).status == 404)
        }
    }

    @Test func onlyTheAuthorEditsACaptionAndFeedsServedEarlierShowTheEdit() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let _: FollowState = try await client.call(.put, "/api/v1/users/alice/follow", as: bob)
            let post = try await client.post("chelsea.jpg", caption: "Sunrise", as: alice)
            // Served (and kept rendered) before the edit.
            let before: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: bob)
            #expect(before.items.first?.caption == "Sunrise" && before.items.first?.editedAt == nil)
            let url = "/api/v1/posts/\(post.id)"
            #expect(try await client.problem(.patch, url, as: bob, json: EditPostRequest(caption: "x")).status == 403)
            #expect(try await client.problem(.patch, url, json: EditPostRequest(caption: "x")).status == 401)
            #expect(
                try await client.problem(.patch, "/api/v1/posts/99999", as: alice, json: EditPostRequest(caption: "x"))
                    .status == 404)
            let long = String(repeating: "a", count: Limits.captionLength.upperBound + 1)
            #expect(
                try await client.problem(.patch, url, as: alice, json: EditPostRequest(caption: long)).status == 422)
            #expect(
                try await client.problem(.patch, url, as: alice, json: EditPostRequest(caption: "a\u{0}b")).status
                    == 422)
            #expect(
                try await client.problem(.patch, url, as: alice, json: ["text": "wrong field"]).code == "malformed_body"
            )
            let edited: Post = try await client.call(
                .patch, url, as: alice, json: EditPostRequest(caption: "  Sunset, in fact  "))
            #expect(edited.caption == "Sunset, in fact" && edited.editedAt != nil && edited.version > post.version)
            let after: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: bob)
            #expect(after.items.first?.caption == "Sunset, in fact" && after.items.first?.editedAt != nil)
            let profile: Page<Post> = try await client.call(.get, "/api/v1/users/alice/posts", as: bob)
            #expect(profile.items.first?.caption == "Sunset, in fact")
        }
    }

    @Test func mediaIsServedWithExactTypeNoSniffAndLongCaching() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let post = try await client.post("rocket.jpg", as: alice)
            let response = try await client.send(.get, post.image.thumb.url)
            #expect(response.headers[.contentType] == "image/jpeg")
            #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(response.headers[.cacheControl]?.contains("immutable") == true)
            let etag = try #require(response.headers[.eTag])
            let again = try await client.send(.get, post.image.thumb.url, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified && again.body.readableBytes == 0)
            #expect(try await client.problem(.get, "/media/../makestagram.sqlite").status == 404)
            #expect(try await client.problem(.get, "/media/0123456789abcdef0123456789abcdef.jpg").status == 404)
        }
    }

    @Test func unknownAndMalformedIDsAreNotFound() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            for path in [
                "/api/v1/posts/999", "/api/v1/posts/abc", "/api/v1/posts/-1", "/api/v1/posts/99999999999999999999",
            ] {
                #expect(try await client.problem(.get, path, as: alice).status == 404, "\(path)")
            }
            #expect(try await client.problem(.put, "/api/v1/posts/999/like", as: alice).status == 404)
            #expect(try await client.problem(.delete, "/api/v1/comments/999", as: alice).status == 404)
        }
    }

    @Test func strayFilesAreSweptAfterStartUpOnceTheyAreOld() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestServer.run({ $0.dataDirectory = folder }) { client, _ in
            let alice = try await client.signUp("alice")
            _ = try await client.post("chelsea.jpg", as: alice)
        }
        let media = folder.appendingPathComponent("media")
        let crashed = media.appendingPathComponent("0123456789abcdef0123456789abcdef.jpg")
        let halfWritten = media.appendingPathComponent(".tmp-x.jpg")
        let inFlight = media.appendingPathComponent("fedcba9876543210fedcba9876543210.jpg")
        try Data("left by a crash".utf8).write(to: crashed)
        try Data("half written".utf8).write(to: halfWritten)
        // Written by another instance sharing the folder, whose post is not committed yet: young, so it stays.
        try Data("in flight".utf8).write(to: inFlight)
        for old in [crashed, halfWritten] {
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-11 * 60)], ofItemAtPath: old.path)
        }
        #expect(try mediaFiles(folder).count == 7)
        try await TestServer.run({ $0.dataDirectory = folder }) { _, _ in
            // The sweep runs in the background after start-up.
            var remaining: [String] = []
            for _ in 0..<500 {
                remaining = try FileManager.default.contentsOfDirectory(atPath: media.path)
                if remaining.count <= 5 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(remaining.count == 5 && remaining.contains(inFlight.lastPathComponent))
        }
    }
}

@Suite struct VariantBackfillTests {
    @Test func postsStoredBeforeVariantsGetThemInTheBackground() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("backfill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A post as the server stored them before responsive variants: a full JPEG, a thumb, no variants.
        let media = folder.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let full = "0123456789abcdef0123456789abcdef.jpg"
        try Fixtures.photo("hubble.jpg").write(to: media.appendingPathComponent(full))
        let id: Int64
        do {
            let store = SQLiteStore(
                database: try AppDatabase(path: folder.appendingPathComponent("makestagram.sqlite").path))
            let author = try await store.createUser(NewUser(username: "old", displayName: "Old", passwordHash: "x"))
            let stored = StoredVariant(fileName: full, width: 1000, height: 872)
            id = try await store.createPost(
                NewPost(
                    authorID: author.id, caption: "from before", width: 1000, height: 872, full: stored, thumb: stored)
            ).id
        }
        try await TestServer.run({ $0.dataDirectory = folder }, setup: .live) { client, _ in
            let reader = try await client.signUp("reader")
            var post: Post = try await client.call(.get, "/api/v1/posts/\(id)", as: reader)
            let deadline = ContinuousClock.now + .seconds(30)
            while post.image.variants.isEmpty && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                post = try await client.call(.get, "/api/v1/posts/\(id)", as: reader)
            }
            #expect(post.image.variants.map(\.width) == [320, 640, 1000])
            #expect(post.image.full.url == "/media/\(full)", "the full JPEG stays")
            let served = try await client.send(.get, try #require(post.image.variants.last).url)
            #expect(served.status == .ok && served.headers[.contentType] == "image/webp")
        }
    }
}
