import Foundation
import MakestagramAPI
import MakestagramStore
import MakestagramStoreSQLite
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

    @Test(arguments: StoreFactory.all)
    func aReplyFromElsewhereIsAddedAndRememberedOnce(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            let alice = try await store.user("alice")
            let post = try await store.photoPost(by: alice)
            let bob = try await store.saveRemoteActor(Self.document("bob"))
            let note = "http://peer.test/notes/9"
            let comment = try #require(
                try await store.addRemoteComment(postID: post, author: bob.userID, text: "Lovely", note: note))
            #expect(
                try await store.inbound(id: note)
                    == InboundActivity(id: note, actor: bob.userID, kind: .comment, object: comment.id))
            #expect(
                try await store.addRemoteComment(postID: post, author: bob.userID, text: "Lovely", note: note) == nil,
                "the same Note again")
            let comments = try await store.comments(postID: post, viewer: alice, page: PageRequest(limit: 5))
            #expect(comments?.items.map(\.id) == [comment.id])
            await #expect(throws: StoreError.notFound("post")) {
                _ = try await store.addRemoteComment(
                    postID: post + 100, author: bob.userID, text: "Lost", note: "http://peer.test/notes/10")
            }
            #expect(try await store.inbound(id: "http://peer.test/notes/10") == nil, "nothing kept of a failed one")
        }
    }
}

/// Deliveries and their servers, on every store: waiting deliveries counted by inbox, how each server answered
/// recorded with the outcomes, and a server tried again at once.
@Suite struct DeliveryServerTests {
    @Test(arguments: StoreFactory.all)
    func serversAnswersAreRecordedWithTheOutcomes(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            try await store.joinChangeLog(consumer: "federation")
            let alice = try await store.user("alice")
            _ = try await store.setHidesLikeCounts(userID: alice, hidden: true)
            _ = try await store.photoPost(by: alice, caption: "logged")
            try await made.settle()
            let batch = try await store.changes(for: "federation", limit: 10)
            let deliveries = ["http://up.test/inbox", "http://down.test/inbox", "http://down.test/users/x/inbox"].map {
                OutboundDelivery(activityID: "http://here.test/a/1", inbox: $0, sender: nil, body: Data("{}".utf8))
            }
            #expect(try await store.queueDeliveries(deliveries, consumer: "federation", batch: batch))
            #expect(
                Set(try await store.pendingDeliveries().map(\.inbox)) == Set(deliveries.map(\.inbox)),
                "one row per inbox")

            let claimed = try await store.claimDeliveries(limit: 10, lease: .seconds(60))
            #expect(claimed.count == 3)
            let later = Date().addingTimeInterval(3600)
            let outcomes = claimed.map { queued -> (id: Int64, outcome: DeliveryOutcome) in
                queued.delivery.inbox.hasPrefix("http://up.test")
                    ? (queued.id, .delivered(status: 202))
                    : (queued.id, .retry(at: later, status: 503, error: "answered 503"))
            }
            try await store.finishDeliveries(
                outcomes,
                servers: [
                    ServerResult(server: "up.test", answered: true),
                    ServerResult(server: "down.test", answered: false, error: "answered 503"),
                    ServerResult(server: "down.test", answered: false, error: "answered 503"),
                ])
            let servers = try await store.deliveryServers()
            #expect(servers.map(\.server) == ["down.test", "up.test"], "the failing first")
            #expect(
                servers[0].failures == 2 && servers[0].failingSince != nil && servers[0].lastError == "answered 503")
            #expect(servers[1].failures == 0 && servers[1].failingSince == nil && servers[1].lastDelivered != nil)
            #expect(try await store.pendingDeliveries().map(\.count).reduce(0, +) == 2)
            // What ended keeps no body; what waits keeps its own.
            let bodies = "SELECT coalesce(sum(length(body)), 0) FROM deliveries WHERE state "
            #expect(try await made.integer(bodies + "<> 'pending'") == 0)
            #expect(try await made.integer(bodies + "= 'pending'") == 4)
            #expect(try await made.integer("SELECT count(*) FROM deliveries WHERE state = 'delivered'") == 1)

            #expect(try await store.retryDeliveries(inboxes: ["http://down.test/inbox"]) == 1)
            let retried = try await store.claimDeliveries(limit: 10, lease: .seconds(60))
            #expect(retried.map(\.delivery.inbox) == ["http://down.test/inbox"])
            #expect(retried.map(\.delivery.body) == [Data("{}".utf8)])
            try await store.finishDeliveries([(retried[0].id, .gaveUp(status: 410, error: "answered 410"))])
            #expect(try await made.integer(bodies + "<> 'pending'") == 0)
            #expect(try await made.integer("SELECT count(*) FROM deliveries WHERE state = 'failed'") == 1)
            try await store.heardFrom(server: "down.test")
            let heard = try #require(try await store.deliveryServers().first { $0.server == "down.test" })
            #expect(heard.failingSince == nil && heard.failures == 0 && heard.lastFailed != nil)
        }
    }
}

/// Posts and photos of other servers, on every store: a post is made with its origin in one step, once per remote
/// post; its photos are found by any of their files, listed while kept, marked removed and kept again, and go with
/// their post.
@Suite struct RemoteMediaTests {
    /// An upload of `user`'s whose files are named after `name`.
    static func upload(_ name: String, by user: Int64, on store: some Store) async throws -> Int64 {
        try await store.createMediaUpload(
            StoredPhoto(
                width: 40, height: 30, full: StoredVariant(fileName: "\(name)1.jpg", width: 40, height: 30),
                thumb: StoredVariant(fileName: "\(name)2.jpg", width: 32, height: 32)),
            userID: user, expiringBefore: Date().addingTimeInterval(-60)
        ).id
    }

    @Test(arguments: StoreFactory.all)
    func aRemotePostIsMadeWithItsOriginOnce(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            let bob = try await store.saveRemoteActor(FederationRecordsTests.document("bob"))
            let origin = RemotePostOrigin(
                uri: "http://peer.test/notes/1", url: "http://peer.test/@bob/1",
                photos: [("http://peer.test/a.jpg", ["a1.jpg", "a2.jpg"])])
            let first = try await Self.upload("a", by: bob.userID, on: store)
            let post = try #require(
                try await store.createRemotePost(
                    fromUploads: [first], userID: bob.userID, caption: "from elsewhere", origin: origin))
            #expect(try await store.remotePostURI(of: post.id)?.uri == "http://peer.test/notes/1")
            #expect(try await store.remotePostURI(of: post.id)?.url == "http://peer.test/@bob/1")
            #expect(try await store.remotePost(uri: "http://peer.test/notes/1") == post.id)
            #expect(try await store.remoteMedia(file: "a2.jpg")?.source == "http://peer.test/a.jpg")
            // Wherever the post is read, it links to its page there.
            #expect(post.original == "http://peer.test/@bob/1")
            #expect(try await store.post(id: post.id, viewer: bob.userID)?.original == "http://peer.test/@bob/1")
            #expect(try await store.posts(ids: [post.id], viewer: 0).map(\.original) == ["http://peer.test/@bob/1"])

            // A second delivery of the same Note makes nothing and leaves its uploads as they were.
            let second = try await Self.upload("b", by: bob.userID, on: store)
            #expect(
                try await store.createRemotePost(
                    fromUploads: [second], userID: bob.userID, caption: "again", origin: origin) == nil)
            #expect(try await store.mediaUpload(id: second, userID: bob.userID) != nil)
            #expect(try await store.remoteMedia(file: "b1.jpg") == nil)
            let posts = try await store.posts(username: bob.username, viewer: bob.userID, page: PageRequest(limit: 5))
            #expect(posts?.items.map(\.id) == [post.id])

            // A Note with no page of its own links to its id; a post from here links nowhere.
            let third = try await Self.upload("c", by: bob.userID, on: store)
            let bare = try #require(
                try await store.createRemotePost(
                    fromUploads: [third], userID: bob.userID, caption: "no page",
                    origin: RemotePostOrigin(
                        uri: "http://peer.test/notes/2", url: nil, photos: [("http://peer.test/c.jpg", ["c1.jpg"])])))
            #expect(try await store.post(id: bare.id, viewer: 0)?.original == "http://peer.test/notes/2")
            let alice = try await store.createUser(NewUser(username: "alice", displayName: "Alice", passwordHash: "x"))
            let upload = try await Self.upload("d", by: alice.id, on: store)
            let local = try await store.createPost(fromUploads: [upload], userID: alice.id, caption: "here")
            #expect(try await store.post(id: local.id, viewer: 0)?.original == nil)
            let origins = try await store.remotePostURIs(of: [post.id, bare.id, local.id])
            #expect(origins.keys.sorted() == [post.id, bare.id].sorted())
            #expect(origins[bare.id]?.uri == "http://peer.test/notes/2" && origins[bare.id]?.url == nil)
            #expect(try await store.remotePostURIs(of: []).isEmpty)
        }
    }

    @Test(arguments: StoreFactory.all)
    func aPostForFollowersOnlyIsKeptOnlyWhileItsAuthorIsPrivate(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            var document = FederationRecordsTests.document("pia")
            let pia = try await store.saveRemoteActor(document)
            func origin(_ n: Int) -> RemotePostOrigin {
                RemotePostOrigin(
                    uri: "http://peer.test/notes/p\(n)", url: nil,
                    photos: [("http://peer.test/p\(n).jpg", ["p\(n)a.jpg"])],
                    followersOnly: true)
            }
            // Public here: a post for her followers only cannot be shown to them alone, and is refused.
            let first = try await Self.upload("p1", by: pia.userID, on: store)
            await #expect(throws: StoreError.forbidden) {
                try await store.createRemotePost(
                    fromUploads: [first], userID: pia.userID, caption: "for followers", origin: origin(1))
            }
            #expect(try await store.remotePost(uri: "http://peer.test/notes/p1") == nil)

            document.isPrivate = true
            _ = try await store.saveRemoteActor(document)
            let post = try #require(
                try await store.createRemotePost(
                    fromUploads: [first], userID: pia.userID, caption: "for followers", origin: origin(1)))
            let open = try await Self.upload("p2", by: pia.userID, on: store)
            let everyone = try #require(
                try await store.createRemotePost(
                    fromUploads: [open], userID: pia.userID, caption: "for all",
                    origin: RemotePostOrigin(uri: "http://peer.test/notes/p2", url: nil, photos: [])))
            #expect(try await store.followersOnlyRemotePosts(of: pia.userID) == [post.id])

            // Her document says she is public now: she stays private while that post is kept.
            document.isPrivate = false
            _ = try await store.saveRemoteActor(document)
            #expect(try await store.profile(id: pia.userID, viewer: pia.userID)?.isPrivate == true)
            #expect(try await store.post(id: post.id, viewer: 0) == nil)
            _ = try await store.deletePost(id: post.id, viewer: pia.userID)
            #expect(try await store.followersOnlyRemotePosts(of: pia.userID).isEmpty)
            _ = try await store.saveRemoteActor(document)
            #expect(try await store.profile(id: pia.userID, viewer: pia.userID)?.isPrivate == false)
            #expect(try await store.post(id: everyone.id, viewer: 0)?.id == everyone.id)
        }
    }

    @Test(arguments: StoreFactory.all)
    func remotePhotosAreFoundByAnyFileAndGoWithTheirPost(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            let bob = try await store.saveRemoteActor(FederationRecordsTests.document("bob"))
            let uploads = [
                try await Self.upload("a", by: bob.userID, on: store),
                try await Self.upload("b", by: bob.userID, on: store),
            ]
            let origin = RemotePostOrigin(
                uri: "http://peer.test/notes/2", url: nil,
                photos: [
                    ("http://peer.test/a.jpg", ["a1.jpg", "a2.jpg", "a3.webp"]), ("http://peer.test/b.jpg", ["b1.jpg"]),
                ])
            let post = try #require(
                try await store.createRemotePost(
                    fromUploads: uploads, userID: bob.userID, caption: "from elsewhere", origin: origin)
            ).id
            let kept = try await store.keptRemoteMedia()
            #expect(kept.map(\.source) == ["http://peer.test/a.jpg", "http://peer.test/b.jpg"])
            let a = try #require(try await store.remoteMedia(file: "a3.webp"))
            #expect(a.files == ["a1.jpg", "a2.jpg", "a3.webp"] && !a.evicted)
            #expect(try await store.remoteMedia(file: "nothing.jpg") == nil)

            try await store.markRemoteMedia([a.id], evicted: true)
            #expect(try await store.keptRemoteMedia().map(\.source) == ["http://peer.test/b.jpg"])
            #expect(try await store.remoteMedia(file: "a1.jpg")?.evicted == true)
            try await store.markRemoteMedia([a.id], evicted: false)
            #expect(
                try await store.keptRemoteMedia().map(\.source) == [
                    "http://peer.test/b.jpg", "http://peer.test/a.jpg",
                ], "kept anew")

            try await store.deletePost(id: post, viewer: bob.userID)
            #expect(try await store.keptRemoteMedia().isEmpty)
            #expect(try await store.remoteMedia(file: "a1.jpg") == nil)
        }
    }
}

/// The farewell of an account being deleted, on every store: while federation runs, an account with an actor key
/// keeps its row (and key) until federation has queued its `Delete` and no delivery it sends is pending; without a
/// key, or with federation off, it goes at once.
@Suite struct AccountFarewellTests {
    static func finish(_ store: any Store, _ user: Int64) async throws -> AccountDeletionStep {
        var step = AccountDeletionStep(files: [], finished: false)
        for _ in 0..<20 where !step.finished && !step.waiting {
            step = try await store.continueAccountDeletion(userID: user, limit: 100)
        }
        return step
    }

    @Test(arguments: StoreFactory.all)
    func anAccountWithAKeyWaitsUntilItsDeleteIsQueuedAndSent(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            try await store.joinChangeLog(consumer: SQLiteStore.federationConsumer)
            let alice = try await store.user("alice")
            let carol = try await store.user("carol")
            _ = try await store.photoPost(by: alice, caption: "soon gone")
            _ = try await store.saveActorKey(user: alice, key: Data([1, 2, 3]))
            let bob = try await store.saveRemoteActor(FederationRecordsTests.document("bob"))
            _ = try await store.saveRemoteActor(FederationRecordsTests.document("eve", host: "other.test"))
            _ = try await store.setFollow(viewer: bob.userID, username: "alice", following: true)
            try await made.settle()
            #expect(try await store.knownInboxes() == ["http://other.test/inbox", "http://peer.test/inbox"])

            try await store.beginAccountDeletion(userID: alice, reserveUsernameUntil: Date().addingTimeInterval(60))
            try await store.beginAccountDeletion(userID: carol, reserveUsernameUntil: Date().addingTimeInterval(60))
            #expect(try await store.sender(id: alice)?.leaving == true)
            #expect(try await store.leavingUser(username: "alice") == alice, "its key is still shown")
            #expect(try await store.leavingUser(username: "carol") == nil, "no key to show")
            #expect(try await store.sender(id: bob.userID)?.leaving == false)
            #expect(try await Self.finish(store, carol).finished, "no key: nobody elsewhere knew her")
            #expect(try await store.sender(id: carol) == nil)

            let waiting = try await Self.finish(store, alice)
            #expect(waiting.waiting && !waiting.finished, "its Delete is not queued yet")
            #expect(try await store.actorKey(user: alice) == Data([1, 2, 3]), "its key is kept to sign it")
            #expect(try await store.profile(username: "bob@peer.test", viewer: bob.userID)?.followingCount == 0)

            try await made.settle()
            let batch = try await store.changes(for: SQLiteStore.federationConsumer, limit: 500)
            let farewell = OutboundDelivery(
                activityID: "http://here.test/users/alice#delete", inbox: "http://peer.test/inbox", sender: alice,
                body: Data("{}".utf8))
            let taken = try #require(
                try await store.queueDeliveries(
                    [farewell, farewell], farewells: [alice], consumer: SQLiteStore.federationConsumer, batch: batch,
                    taking: DeliveryTake(lease: .seconds(60), limit: 10)))
            #expect(taken.map(\.delivery) == [farewell] && taken[0].attempts == 1, "queued once, and taken")
            #expect(try await Self.finish(store, alice).waiting, "its Delete is still to be sent")
            #expect(try await store.claimDeliveries(limit: 10, lease: .seconds(60)).isEmpty, "taken: not claimed")
            #expect(
                try await store.queueDeliveries(
                    [farewell], farewells: [], consumer: SQLiteStore.federationConsumer, batch: batch,
                    taking: DeliveryTake(lease: .seconds(60), limit: 10)) == nil, "the consumer has moved on")

            try await store.finishDeliveries(taken.map { ($0.id, .delivered(status: 202)) })
            #expect(try await Self.finish(store, alice).finished)
            #expect(try await store.actorKey(user: alice) == nil)
            #expect(try await store.sender(id: alice) == nil)
            #expect(try await store.leavingUser(username: "alice") == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func withFederationOffNothingWaits(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            let alice = try await store.user("alice")
            _ = try await store.saveActorKey(user: alice, key: Data([1]))
            try await store.beginAccountDeletion(userID: alice, reserveUsernameUntil: Date().addingTimeInterval(60))
            #expect(try await Self.finish(store, alice).finished)
        }
    }
}

/// Deliveries taken as they are queued, on every store: only the first ones, the rest left for any instance. Those
/// of a process that stopped: SQLite (one process) sends them again as soon as its worker starts; PostgreSQL
/// (instances share the queue) leaves them to their lease. A retry that waits after a failure keeps waiting on both.
@Suite struct StaleLeaseTests {
    /// Queues one delivery to each of `inboxes` as federation's consumer, taking the first `limit`.
    static func queue(_ inboxes: [String], taking limit: Int, in made: MadeStore) async throws -> (
        any Store, [QueuedDelivery]
    ) {
        let store = made.store
        let consumer = SQLiteStore.federationConsumer
        try await store.joinChangeLog(consumer: consumer)
        let alice = try await store.user("alice")
        _ = try await store.photoPost(by: alice, caption: "logged")
        try await made.settle()
        let batch = try await store.changes(for: consumer, limit: 100)
        let deliveries = inboxes.map {
            OutboundDelivery(activityID: "http://here.test/a/1", inbox: $0, sender: nil, body: Data("{}".utf8))
        }
        let taken = try #require(
            try await store.queueDeliveries(
                deliveries, farewells: [], consumer: consumer, batch: batch,
                taking: DeliveryTake(lease: .seconds(45), limit: limit)))
        return (store, taken)
    }

    @Test(arguments: StoreFactory.all)
    func onlyTheFirstDeliveriesAreTakenAsTheyAreQueuedTheRestAreForAnyInstance(factory: StoreFactory) async throws {
        try await factory.with { made in
            let (store, taken) = try await Self.queue(
                ["http://a.test/inbox", "http://b.test/inbox", "http://c.test/inbox"], taking: 1, in: made)
            #expect(taken.map(\.delivery.inbox) == ["http://a.test/inbox"])
            #expect(
                Set(try await store.claimDeliveries(limit: 10, lease: .seconds(45)).map(\.delivery.inbox)) == [
                    "http://b.test/inbox", "http://c.test/inbox",
                ])
        }
    }

    @Test(arguments: StoreFactory.all)
    func aStoppedProcesssDeliveriesAreDueAgainOnlyWhereNobodyElseCanHoldThem(factory: StoreFactory) async throws {
        try await factory.with { made in
            let (store, taken) = try await Self.queue(
                ["http://taken.test/inbox", "http://failed.test/inbox"], taking: 2, in: made)
            #expect(taken.count == 2)
            let failed = try #require(taken.first { $0.delivery.inbox == "http://failed.test/inbox" })
            try await store.finishDeliveries([
                (failed.id, .retry(at: Date().addingTimeInterval(30), status: 503, error: "answered 503"))
            ])
            #expect(try await store.claimDeliveries(limit: 10, lease: .seconds(45)).isEmpty)

            try await store.releaseStaleLeases(.seconds(45))
            let claimed = try await store.claimDeliveries(limit: 10, lease: .seconds(45)).map(\.delivery.inbox)
            if factory.description == "SQLite" {
                #expect(claimed == ["http://taken.test/inbox"], "the lease of a stopped process, not the retry")
            } else {
                #expect(claimed.isEmpty, "another instance may hold it")
            }
        }
    }
}
