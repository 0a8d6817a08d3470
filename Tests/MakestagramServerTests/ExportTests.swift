import Foundation
import HTTPTypes
import HummingbirdTesting
import MakestagramAPI
import NIOCore
import ServerTestSupport
import Testing
import ZIPFoundation

@Suite struct ExportTests {
    @Test func anExportHoldsEverythingTheUserPutInAndLeavesNothingBehind() async throws {
        try await TestServer.run { client, folder in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let first = try await client.post("chelsea.jpg", caption: "Cat #one", as: alice)
            let second = try await client.post("hubble.jpg", caption: "Deep field", as: alice)
            let bobs = try await client.post("rocket.jpg", as: bob)
            let _: FollowState = try await client.call(.put, "/api/v1/users/bob/follow", as: alice)
            let _: FollowState = try await client.call(.put, "/api/v1/users/alice/follow", as: bob)
            let _: LikeState = try await client.call(.put, "/api/v1/posts/\(first.id)/like", as: bob)
            _ = try await client.send(
                .post, "/api/v1/posts/\(bobs.id)/comments", as: alice, json: NewCommentRequest(text: "Lift-off!"))

            let response = try await client.send(.get, "/api/v1/me/export", as: alice)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/zip")
            #expect(
                response.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"makestagram-alice-") == true)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).zip")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(buffer: response.body).write(to: file)
            let archive = try Archive(url: file, accessMode: .read)
            func read(_ path: String) throws -> Data {
                let entry = try #require(archive[path], "\(path) is in the archive")
                var data = Data()
                _ = try archive.extract(entry) { data.append($0) }
                return data
            }
            #expect(
                Set(archive.map(\.path)) == [
                    "README.txt", "profile.json", "posts.json", "comments.json", "following.json", "followers.json",
                    "muted.json", "blocked.json", "photos/\(first.id).jpg", "photos/\(second.id).jpg",
                ])
            let decoder = JSONCoding.decoder()
            let profile = try decoder.decode(UserProfile.self, from: try read("profile.json"))
            #expect(profile.username == "alice" && profile.postCount == 2)
            struct Entry: Decodable {
                var id: Int64
                var caption: String
                var likeCount: Int
                var photo: String
            }
            let posts = try decoder.decode([Entry].self, from: try read("posts.json"))
            #expect(posts.map(\.id) == [first.id, second.id] && posts.map(\.caption) == ["Cat #one", "Deep field"])
            #expect(posts.map(\.likeCount) == [1, 0])
            let photo = try read(posts[0].photo)
            let served = try await client.send(.get, first.image.full.url)
            #expect(photo == Data(buffer: served.body), "the stored photo itself")
            struct CommentEntry: Decodable {
                var postId: Int64
                var text: String
            }
            let comments = try decoder.decode([CommentEntry].self, from: try read("comments.json"))
            #expect(comments.map(\.text) == ["Lift-off!"] && comments.map(\.postId) == [bobs.id])
            #expect(try decoder.decode([String].self, from: try read("following.json")) == ["bob"])
            #expect(try decoder.decode([String].self, from: try read("followers.json")) == ["bob"])
            #expect(String(decoding: try read("README.txt"), as: UTF8.self).contains("2 posts"))

            let left = try FileManager.default.contentsOfDirectory(
                atPath: folder.appendingPathComponent("exports").path)
            #expect(left.isEmpty, "no archive stays on disk")
            #expect(try await client.problem(.get, "/api/v1/me/export").status == 401)
        }
    }

    @Test func exportsAreRateLimited() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<4 { statuses.append(try await client.send(.get, "/api/v1/me/export", as: alice).status) }
            #expect(statuses == [.ok, .ok, .ok, .tooManyRequests])
        }
    }
}
