import Foundation
import HTTPTypes
import HummingbirdTesting
import MakestagramAPI
import NIOCore
import Photos
import ServerTestSupport
import TestFixtures
import Testing

/// Editing one's own profile: name, bio and avatar, and their reach into everything already served.
@Suite struct ProfileTests {
    func mediaFiles(_ folder: URL) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("media").path))
    }

    func setAvatar(_ client: any TestClientProtocol, _ photo: String, as user: TestUser, data: Data? = nil)
        async throws -> TestResponse
    {
        let (body, contentType) = Multipart.body(
            fields: [:], file: ("image", photo, data ?? Fixtures.photo(photo)))
        var headers = user.auth
        headers[.contentType] = contentType
        return try await client.executeRequest(uri: "/api/v1/me/avatar", method: .put, headers: headers, body: body)
    }

    @Test func aNewNameAndAvatarReachFeedsCommentsAndListsServedBefore() async throws {
        try await TestServer.run { client, folder in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let _: FollowState = try await client.call(.put, "/api/v1/users/alice/follow", as: bob)
            let post = try await client.post("chelsea.jpg", caption: "Cat", as: alice)
            let _: MakestagramAPI.Comment = try await client.call(
                .post, "/api/v1/posts/\(post.id)/comments", as: alice, json: NewCommentRequest(text: "mine"),
                expect: .created)
            _ = try await client.send(.put, "/api/v1/posts/\(post.id)/like", as: alice)
            // Served, and kept rendered, before the change.
            let before: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: bob)
            #expect(before.items.first?.author.displayName == "Alice")
            let postsBefore: Page<Post> = try await client.call(.get, "/api/v1/users/alice/posts", as: bob)
            #expect(postsBefore.items.first?.author.avatarURL == nil)

            let named: UserProfile = try await client.call(
                .patch, "/api/v1/me", as: alice, json: EditProfileRequest(displayName: " Alice Archer ", bio: "Cats\n"))
            #expect(named.displayName == "Alice Archer" && named.bio == "Cats")
            let files = try mediaFiles(folder)
            let answer = try await setAvatar(client, "phone-gps-rotated.jpg", as: alice)
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            let profile = try JSONCoding.decoder().decode(UserProfile.self, from: Data(buffer: answer.body))
            let small = try #require(profile.avatarURL)
            let large = try #require(profile.avatarLargeURL)
            #expect(try mediaFiles(folder).subtracting(files).count == 2)
            for (url, side) in [(small, UserProfile.avatarSmallSize), (large, UserProfile.avatarLargeSize)] {
                let data = Data(buffer: try await client.send(.get, url).body)
                let header = try data.withUnsafeBytes { try ImageHeader.read($0) }
                #expect(header.width == side && header.height == side && header.metadata.isEmpty)
                #expect(data.range(of: Data("GPS".utf8)) == nil && data.range(of: Data("Exif".utf8)) == nil)
            }

            let after: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: bob)
            let seen = try #require(after.items.first)
            #expect(seen.author.displayName == "Alice Archer" && seen.author.avatarURL == small)
            #expect(seen.recentComments.first?.author.avatarURL == small)
            let postsAfter: Page<Post> = try await client.call(.get, "/api/v1/users/alice/posts", as: bob)
            #expect(postsAfter.items.first?.author.avatarURL == small)
            let likers: Page<UserSummary> = try await client.call(.get, "/api/v1/posts/\(post.id)/likes", as: bob)
            #expect(likers.items.first?.avatarURL == small)
            let followers: Page<UserSummary> = try await client.call(.get, "/api/v1/users/bob/following", as: bob)
            #expect(followers.items.first?.displayName == "Alice Archer")
            let found: Page<UserSummary> = try await client.call(.get, "/api/v1/users?query=ali", as: bob)
            #expect(found.items.first?.avatarURL == small)
            let me: UserProfile = try await client.call(.get, "/api/v1/me", as: alice)
            #expect(me.avatarLargeURL == large && me.bio == "Cats")

            // A new avatar replaces the old files; removing it goes back to initials and leaves no file.
            let replaced = try await setAvatar(client, "rocket.jpg", as: alice)
            #expect(replaced.status == .ok)
            #expect(try await client.problem(.get, small).status == 404)
            let removed: UserProfile = try await client.call(.delete, "/api/v1/me/avatar", as: alice)
            #expect(removed.avatarURL == nil && removed.avatarLargeURL == nil)
            #expect(try mediaFiles(folder) == files)
            let last: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: bob)
            #expect(last.items.first?.author.avatarURL == nil)
        }
    }

    @Test func badProfileInputIsRefusedAndChangesNothing() async throws {
        try await TestServer.run { client, folder in
            let alice = try await client.signUp("alice")
            func refused(_ edit: EditProfileRequest) async throws -> Int {
                try await client.problem(.patch, "/api/v1/me", as: alice, json: edit).status
            }
            #expect(try await refused(EditProfileRequest(displayName: "   ")) == 422)
            #expect(try await refused(EditProfileRequest(displayName: String(repeating: "n", count: 51))) == 422)
            #expect(try await refused(EditProfileRequest(displayName: "A\u{202E}lice")) == 422)
            #expect(try await refused(EditProfileRequest(bio: String(repeating: "b", count: 151))) == 422)
            #expect(try await refused(EditProfileRequest(bio: "nul\u{0}")) == 422)
            #expect(try await client.problem(.patch, "/api/v1/me", json: EditProfileRequest(bio: "x")).status == 401)
            let broken = try await setAvatar(client, "not-an-image.jpg", as: alice)
            #expect(broken.status == .unsupportedMediaType)
            let empty = try await setAvatar(client, "empty.jpg", as: alice, data: Data())
            #expect(empty.status == .unprocessableContent)
            #expect(try mediaFiles(folder).isEmpty)
            let me: UserProfile = try await client.call(.get, "/api/v1/me", as: alice)
            #expect(me.displayName == "Alice" && me.bio.isEmpty && me.avatarURL == nil)
        }
    }
}
