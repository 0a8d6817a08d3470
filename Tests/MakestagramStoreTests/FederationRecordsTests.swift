import Foundation
import MakestagramAPI
import MakestagramStore
import Testing

/// What federation keeps, on every store: a remote person becomes a user named `user@host` who follows and likes
/// exactly as a local one does and can never log in; actor keys are made once; an activity id is applied once.
@Suite struct FederationRecordsTests {
    static func document(_ name: String, host: String = "peer.test", shared: Bool = true) -> RemoteActorDocument {
        RemoteActorDocument(
            uri: "http://\(host)/users/\(name)", username: "\(name)@\(host)", displayName: name.capitalized,
            bio: "from \(host)", inbox: "http://\(host)/users/\(name)/inbox",
            sharedInbox: shared ? "http://\(host)/inbox" : nil, keyID: "http://\(host)/users/\(name)#main-key",
            publicKeyPEM: "PEM of \(name)", profileURL: "http://\(host)/@\(name)", isPrivate: false)
    }

    @Test(arguments: StoreFactory.all)
    func remotePeopleFollowAndLikeAsLocalOnesDo(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            let alice = try await store.user("alice")
            let post = try await store.photoPost(by: alice, caption: "hello")
            let bob = try await store.saveRemoteActor(Self.document("bob"))
            let dan = try await store.saveRemoteActor(Self.document("dan"))
            let eve = try await store.saveRemoteActor(Self.document("eve", host: "other.test", shared: false))
            #expect(bob.username == "bob@peer.test" && bob.deliveryInbox == "http://peer.test/inbox")
            #expect(try await store.profile(username: "bob@peer.test", viewer: alice)?.bio == "from peer.test")
            #expect(try await store.remoteActor(uri: "http://peer.test/users/bob") == bob)
            #expect(try await store.remoteActor(user: bob.userID) == bob)
            #expect(try await store.remoteActor(user: alice) == nil, "a local person is not remote")
            #expect(try await store.credentials(username: "bob@peer.test") == nil, "no log-in as a remote person")

            for remote in [bob, dan, eve] {
                _ = try await store.setFollow(viewer: remote.userID, username: "alice", following: true)
            }
            _ = try await store.setLike(postID: post, viewer: bob.userID, liked: true)
            _ = try await store.setLike(postID: post, viewer: bob.userID, liked: true)
            try await made.settle()
            let profile = try #require(try await store.profile(username: "alice", viewer: alice))
            #expect(profile.followerCount == 3)
            let seen = try #require(try await store.post(id: post, viewer: alice))
            #expect(seen.likeCount == 1 && seen.likers == ["bob@peer.test"])
            // One delivery per server: peer.test's shared inbox once, other.test's person's own inbox.
            #expect(
                try await store.remoteFollowerInboxes(of: alice) == [
                    "http://other.test/users/eve/inbox", "http://peer.test/inbox",
                ])
            #expect(try await store.localUsage() == (users: 1, posts: 1))

            // A later document updates what is known, under the same user.
            var renamed = Self.document("bob")
            renamed.displayName = "Bob B."
            renamed.publicKeyPEM = "rotated"
            renamed.iconURL = "http://peer.test/bob.jpg"
            let again = try await store.saveRemoteActor(renamed)
            #expect(again.userID == bob.userID && again.publicKeyPEM == "rotated")
            #expect(try await store.remoteActor(user: bob.userID)?.iconURL == "http://peer.test/bob.jpg")
            #expect(try await store.profile(username: "bob@peer.test", viewer: alice)?.displayName == "Bob B.")
            #expect(
                try await store.searchUsers(query: "bob", viewer: alice, limit: 5).map(\.username) == ["bob@peer.test"])
        }
    }

    @Test(arguments: StoreFactory.all)
    func keysAreMadeOnceAndActivitiesAppliedOnce(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            let alice = try await store.user("alice")
            #expect(try await store.actorKey(user: alice) == nil)
            #expect(try await store.saveActorKey(user: alice, key: Data([1, 2, 3])) == Data([1, 2, 3]))
            #expect(
                try await store.saveActorKey(user: alice, key: Data([4])) == Data([1, 2, 3]), "the first one stays")
            #expect(try await store.actorKey(user: alice) == Data([1, 2, 3]))
            #expect(try await store.saveActorKey(user: nil, key: Data([9])) == Data([9]))
            #expect(try await store.actorKey(user: nil) == Data([9]))

            let bob = try await store.saveRemoteActor(Self.document("bob"))
            let like = InboundActivity(id: "http://peer.test/likes/1", actor: bob.userID, kind: .like, object: 7)
            #expect(try await store.rememberInbound(like))
            #expect(try await !store.rememberInbound(like), "the same id again")
            #expect(try await store.inbound(id: like.id) == like)
            try await store.forgetInbound(id: like.id)
            #expect(try await store.inbound(id: like.id) == nil)
        }
    }
}
