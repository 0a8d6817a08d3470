import Foundation
import MakestagramAPI
import MakestagramStore
import Synchronization
import Testing

/// Keeps what a store publishes.
final class RecordingSink: StoreEventSink {
    private let events = Mutex<[StoreEvent]>([])
    func publish(_ event: StoreEvent) { events.withLock { $0.append(event) } }
    /// Everything published since the last call.
    func take() -> [StoreEvent] {
        events.withLock { events in
            defer { events = [] }
            return events
        }
    }
}

/// A recording sink read once the store has published everything committed.
struct SettledSink {
    let sink: RecordingSink
    let settle: @Sendable () async throws -> Void

    func take() async throws -> [StoreEvent] {
        try await settle()
        return sink.take()
    }
}

/// The events contract: what every ``Store`` publishes after its commits.
@Suite struct StoreEventTests {
    func withStore(_ factory: StoreFactory, _ body: (any Store, SettledSink) async throws -> Void) async throws {
        let sink = RecordingSink()
        try await factory.with(sink) { made in try await body(made.store, SettledSink(sink: sink, settle: made.settle))
        }
    }

    /// A photo's alt text is kept whole from its post (or its upload ahead) to every read; only the author changes
    /// An album keeps its photos in the author's order, each with its own files and alt text: every read has them
    /// all, one photo's alt text changes alone (published), and deleting the post answers every file.
    @Test(arguments: StoreFactory.all)
    func anAlbumKeepsItsPhotosInOrderEverywhere(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            _ = try await store.setFollow(viewer: bob, username: "alice", following: true)
            func photo(_ name: String, _ alt: String?) -> StoredPhoto {
                StoredPhoto(
                    width: 400, height: 300, full: StoredVariant(fileName: "\(name)f.jpg", width: 400, height: 300),
                    thumb: StoredVariant(fileName: "\(name)t.jpg", width: 320, height: 320),
                    variants: [StoredVariant(fileName: "\(name)v.webp", width: 320, height: 240)], altText: alt)
            }
            let photos = [photo("a1", "First"), photo("a2", nil), photo("a3", "Third")]
            let created = try await store.createPost(
                NewPost(authorID: alice, caption: "Trip #album", photos: photos))
            #expect(created.photos == photos.map(\.image))
            #expect(created.image == photos[0].image, "the first photo is the cover")
            let single = try await store.photoPost(by: alice, caption: "one")
            let timeline = try await store.timeline(viewer: bob, page: PageRequest(limit: 10)).items
            #expect(timeline.map(\.photos.count) == [1, 3])
            #expect(timeline[1].photos.map(\.altText) == ["First", nil, "Third"])
            #expect(
                try await store.posts(ids: [created.id, single], viewer: bob).first { $0.id == created.id }?.photos
                    == created.photos)
            #expect(try await store.post(id: created.id, viewer: bob)?.photos == created.photos)
            #expect(
                try await store.posts(tag: "album", viewer: bob, page: PageRequest(limit: 5)).items.first?.photos
                    == created.photos)
            let files = try await store.referencedMediaFiles()
            for name in photos.flatMap(\.fileNames) { #expect(files.contains(name)) }
            _ = try await sink.take()

            let edited = try await store.setAltText(postID: created.id, viewer: alice, photo: 1, altText: "Second")
            #expect(edited.photos.map(\.altText) == ["First", "Second", "Third"] && edited.version > created.version)
            #expect(try await sink.take().contains(.imageChanged(postID: created.id, version: edited.version)))
            await #expect(throws: StoreError.notFound("photo")) {
                _ = try await store.setAltText(postID: created.id, viewer: alice, photo: 3, altText: "none")
            }
            await #expect(throws: StoreError.forbidden) {
                _ = try await store.setAltText(postID: created.id, viewer: bob, photo: 2, altText: "mine")
            }
            let export = try #require(try await store.dataExport(userID: alice))
            let exported = try #require(export.posts.first { $0.id == created.id })
            #expect(exported.altText == "First" && exported.morePhotos.map(\.altText) == ["Second", "Third"])
            #expect(exported.morePhotos.map(\.fileName) == ["a2f.jpg", "a3f.jpg"])

            let removed = try await store.deletePost(id: created.id, viewer: alice)
            #expect(Set(removed) == Set(photos.flatMap(\.fileNames)))
            let after = try await store.referencedMediaFiles()
            for name in photos.flatMap(\.fileNames) { #expect(!after.contains(name)) }
        }
    }

    /// it, a change grows the version and is published, and every list sees it.
    @Test(arguments: StoreFactory.all)
    func altTextIsKeptReadEverywhereAndChangedOnlyByTheAuthor(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            _ = try await store.setFollow(viewer: bob, username: "alice", following: true)
            let described = String(repeating: "é", count: 1_499) + "\u{1F408}"
            let created = try await store.createPost(
                NewPost(
                    authorID: alice, caption: "Our cat", width: 400, height: 300,
                    full: StoredVariant(fileName: "altf.jpg", width: 400, height: 300),
                    thumb: StoredVariant(fileName: "altt.jpg", width: 320, height: 320), altText: described))
            #expect(created.image.altText == described)
            let listed = try #require(try await store.timeline(viewer: bob, page: PageRequest(limit: 10)).items.first)
            #expect(listed.image.altText == described)
            #expect(try await store.posts(ids: [created.id], viewer: bob).first?.image.altText == described)
            _ = try await sink.take()

            await #expect(throws: StoreError.forbidden) {
                _ = try await store.setAltText(postID: created.id, viewer: bob, photo: 0, altText: "mine")
            }
            await #expect(throws: StoreError.notFound("post")) {
                _ = try await store.setAltText(postID: created.id + 1000, viewer: alice, photo: 0, altText: "x")
            }
            let edited = try await store.setAltText(
                postID: created.id, viewer: alice, photo: 0, altText: "A grey cat asleep")
            #expect(edited.image.altText == "A grey cat asleep" && edited.version > created.version)
            #expect(edited.caption == "Our cat" && edited.editedAt == nil, "the caption was not edited")
            #expect(
                try await sink.take().contains(.imageChanged(postID: created.id, version: edited.version)),
                "screens showing it hear of it")
            let seen = try #require(try await store.timeline(viewer: bob, page: PageRequest(limit: 10)).items.first)
            #expect(seen.image.altText == "A grey cat asleep" && seen.version == edited.version)
            let same = try await store.setAltText(
                postID: created.id, viewer: alice, photo: 0, altText: "A grey cat asleep")
            #expect(same.version == edited.version, "the same text changes nothing")
            let cleared = try await store.setAltText(postID: created.id, viewer: alice, photo: 0, altText: nil)
            #expect(cleared.image.altText == nil && cleared.version > edited.version)

            // A photo uploaded ahead keeps its alt text, which can change until it is posted, by its owner only.
            let upload = try await store.createMediaUpload(
                StoredPhoto(
                    width: 400, height: 300, full: StoredVariant(fileName: "upf.jpg", width: 400, height: 300),
                    thumb: StoredVariant(fileName: "upt.jpg", width: 320, height: 320), altText: "first words"),
                userID: alice, expiringBefore: .distantPast)
            #expect(try await store.mediaUpload(id: upload.id, userID: alice)?.altText == "first words")
            await #expect(throws: StoreError.notFound("media")) {
                _ = try await store.setUploadAltText(id: upload.id, userID: bob, altText: "x")
            }
            let changed = try await store.setUploadAltText(id: upload.id, userID: alice, altText: "A dog")
            #expect(changed.altText == "A dog")
            let posted = try await store.createPost(fromUploads: [upload.id], userID: alice, caption: "Dog")
            #expect(posted.image.altText == "A dog")
        }
    }

    @Test(arguments: StoreFactory.all)
    func likesPublishTheStateAfterTheCommitOnlyWhenSomethingChanged(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let post = try await store.photoPost(by: alice)
            guard case .postCreated(let created, let audience) = try await sink.take().first else {
                Issue.record("expected postCreated")
                return
            }
            #expect(created.id == post && audience == [alice])
            _ = try await store.setLike(postID: post, viewer: bob, liked: true)
            _ = try await store.setLike(postID: post, viewer: bob, liked: true)
            _ = try await store.setLike(postID: post, viewer: alice, liked: true)
            _ = try await store.setLike(postID: post, viewer: bob, liked: false)
            let changes = try await sink.take().compactMap { event -> LikeChange? in
                if case .likeChanged(let change) = event { change } else { nil }
            }
            #expect(changes.map(\.likeCount) == [1, 2, 1])
            #expect(changes.map(\.actor.username) == ["bob", "alice", "bob"])
            #expect(changes.map(\.liked) == [true, true, false])
            #expect(changes.last?.likers == ["alice"])
            #expect(changes.map(\.version) == changes.map(\.version).sorted() && Set(changes.map(\.version)).count == 3)
            let stored = try #require(try await store.post(id: post, viewer: bob))
            #expect(stored.version == changes.last?.version)
        }
    }

    /// The durable log holds each change as the sink heard it, in order, on both stores: the record a write logs
    /// (on PostgreSQL, a like's is built in SQL from the record's own keys) reads back as the event it published.
    @Test(arguments: StoreFactory.all)
    func theLogHoldsEveryChangeAsItWasPublished(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let tricky = "Bob \"the\" \\ 𝔅 \u{1}\u{7F} ☃ \u{202E}"
            let bob = try await store.createUser(
                NewUser(username: "bob", displayName: tricky, passwordHash: "x")
            ).id
            let post = try await store.photoPost(by: alice)
            _ = try await sink.take()
            _ = try await store.setLike(postID: post, viewer: bob, liked: true)
            _ = try await store.setLike(postID: post, viewer: alice, liked: true)
            _ = try await store.setLike(postID: post, viewer: bob, liked: false)
            _ = try await store.setLikeCountHidden(postID: post, viewer: alice, hidden: true)
            _ = try await store.setFollow(viewer: bob, username: "alice", following: true)
            let comment = try await store.addComment(postID: post, author: bob, text: "hi \"there\" 🎉")
            _ = try await store.editCaption(postID: post, viewer: alice, caption: "new\ncaption")
            try await store.deleteComment(id: comment.id, viewer: alice)
            let logged = try await store.changes(for: "activity", limit: 100)
            let heard = try await sink.take().filter { if case .activityChanged = $0 { false } else { true } }
            #expect(logged.changes.map(\.event) == heard)
            #expect(heard.count == 8)
            guard case .likeChanged(let first) = heard.first else {
                Issue.record("expected a like first: \(heard)")
                return
            }
            #expect(first.actor.displayName == tricky && first.likers == ["bob"] && first.authorID == alice)
        }
    }

    @Test(arguments: StoreFactory.all)
    func followsCommentsDeletionsAndLogOutsArePublished(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            _ = try await store.setFollow(viewer: bob, username: "alice", following: true)
            let post = try await store.photoPost(by: alice)
            let comment = try await store.addComment(postID: post, author: bob, text: "hi")
            try await store.deleteComment(id: comment.id, viewer: alice)
            _ = try await store.deletePost(id: post, viewer: alice)
            try await store.createSession(userID: bob, tokenHash: Array(repeating: 3, count: 32))
            try await store.deleteSession(tokenHash: Array(repeating: 3, count: 32))
            try await store.deleteSession(tokenHash: Array(repeating: 3, count: 32))
            // Activity counts have their own contract (ActivityTests).
            let events = try await sink.take().filter { if case .activityChanged = $0 { false } else { true } }
            guard events.count == 6,
                case .followChanged(bob, alice, true) = events[0],
                case .postCreated(_, let audience) = events[1],
                case .commentCreated(let created, 1, let v1) = events[2],
                case .commentDeleted(comment.id, post, 0, let v2, _) = events[3],
                case .postDeleted(post, let v3, let leftFrom) = events[4],
                case .sessionEnded(let ended) = events[5], ended == Array(repeating: 3, count: 32)
            else {
                Issue.record("unexpected events: \(events)")
                return
            }
            #expect(Set(audience) == [alice, bob] && Set(leftFrom) == [alice, bob])
            #expect(created == comment && v1 < v2 && v2 < v3)
        }
    }

    @Test(arguments: StoreFactory.all)
    func sessionsAreListedTouchedAndEndedByAPasswordChange(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let (phone, laptop, cli) = (
                [UInt8](repeating: 1, count: 32), [UInt8](repeating: 2, count: 32),
                [UInt8](repeating: 3, count: 32)
            )
            try await store.createSession(
                userID: alice, tokenHash: phone, client: SessionClient(userAgent: "Phone", address: "10.0.0.1"))
            try await store.createSession(userID: alice, tokenHash: laptop)
            try await store.createSession(userID: bob, tokenHash: cli)
            try await Task.sleep(for: .milliseconds(20))
            try await store.touchSession(
                tokenHash: laptop, client: SessionClient(userAgent: "Laptop", address: "2001:db8::1"))
            let listed = try await store.sessions(userID: alice)
            #expect(listed.map(\.tokenHash) == [laptop, phone], "most recently used first")
            #expect(
                listed.map(\.client) == [
                    SessionClient(userAgent: "Laptop", address: "2001:db8::1"),
                    SessionClient(userAgent: "Phone", address: "10.0.0.1"),
                ])
            #expect(listed[0].lastUsedAt > listed[0].createdAt)
            #expect(SessionClient(userAgent: String(repeating: "x", count: 1000)).userAgent?.count == 300)
            _ = try await sink.take()

            #expect(try await store.changePassword(userID: alice, passwordHash: "new", keeping: laptop) == 1)
            #expect(try await store.credentials(username: "alice")?.passwordHash == "new")
            #expect(try await store.sessions(userID: alice).map(\.tokenHash) == [laptop])
            #expect(try await store.sessionUser(tokenHash: phone) == nil)
            #expect(try await store.sessionUser(tokenHash: laptop)?.username == "alice")
            #expect(try await store.sessions(userID: bob).map(\.tokenHash) == [cli], "nobody else's")
            #expect(try await sink.take() == [.sessionEnded(tokenHash: phone)])
            await #expect(throws: StoreError.self) {
                _ = try await store.changePassword(userID: 999_999, passwordHash: "x", keeping: laptop)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func variantsAreGivenOnceToPostsStoredWithoutThem(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let old = try await store.photoPost(by: alice)
            let fresh = try await store.createPost(
                NewPost(
                    authorID: alice, caption: "", width: 640, height: 480,
                    full: StoredVariant(fileName: "f.jpg", width: 640, height: 480),
                    thumb: StoredVariant(fileName: "t.jpg", width: 320, height: 320),
                    variants: [
                        StoredVariant(fileName: "a.webp", width: 320, height: 240),
                        StoredVariant(fileName: "b.webp", width: 640, height: 480),
                    ]))
            #expect(fresh.image.variants.map(\.url) == ["/media/a.webp", "/media/b.webp"])
            #expect(fresh.image.variants.map(\.type) == ["image/webp", "image/webp"])
            let waiting = try await store.postsWithoutVariants(after: 0, limit: 10)
            #expect(waiting.map(\.id) == [old])
            #expect(try await store.postsWithoutVariants(after: old, limit: 10).isEmpty)
            let before = try #require(try await store.post(id: old, viewer: alice))
            #expect(before.image.variants.isEmpty)
            _ = try await sink.take()

            let made = [StoredVariant(fileName: "c.webp", width: 320, height: 240)]
            #expect(try await store.setVariants(postID: old, variants: made))
            #expect(!(try await store.setVariants(postID: old, variants: made)), "given once")
            #expect(!(try await store.setVariants(postID: 999_999, variants: made)))
            let after = try #require(try await store.post(id: old, viewer: alice))
            #expect(after.image.variants.map(\.url) == ["/media/c.webp"] && after.version == before.version + 1)
            #expect(try await sink.take() == [.imageChanged(postID: old, version: after.version)])
            #expect(try await store.postsWithoutVariants(after: 0, limit: 10).isEmpty)
            #expect(try await store.referencedMediaFiles().names.isSuperset(of: ["a.webp", "b.webp", "c.webp"]))
            #expect(
                Set(try await store.deletePost(id: fresh.id, viewer: alice)) == ["f.jpg", "t.jpg", "a.webp", "b.webp"])
        }
    }

    @Test(arguments: StoreFactory.all)
    func aCaptionEditPublishesTheNewCaptionAndVersionOnce(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let post = try await store.photoPost(by: alice)
            _ = try await sink.take()
            await #expect(throws: StoreError.forbidden) {
                _ = try await store.editCaption(postID: post, viewer: bob, caption: "x")
            }
            let edited = try await store.editCaption(postID: post, viewer: alice, caption: "Line one\nline two")
            _ = try await store.editCaption(postID: post, viewer: alice, caption: "Line one\nline two")
            let events = try await sink.take()
            #expect(events.count == 1)
            guard case .captionEdited(post, "Line one\nline two", let editedAt, edited.version) = events.first else {
                Issue.record("expected captionEdited, got \(events)")
                return
            }
            #expect(abs(editedAt.timeIntervalSince(try #require(edited.editedAt))) < 0.001)
        }
    }

    @Test(arguments: StoreFactory.all)
    func hidingALikeCountIsPublishedOnceAndLikesSayFromWhomTheCountIsKept(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let post = try await store.photoPost(by: alice)
            _ = try await sink.take()
            await #expect(throws: StoreError.forbidden) {
                _ = try await store.setLikeCountHidden(postID: post, viewer: bob, hidden: true)
            }
            await #expect(throws: StoreError.notFound("post")) {
                _ = try await store.setLikeCountHidden(postID: post + 1000, viewer: alice, hidden: true)
            }
            let hidden = try await store.setLikeCountHidden(postID: post, viewer: alice, hidden: true)
            _ = try await store.setLikeCountHidden(postID: post, viewer: alice, hidden: true)
            #expect(hidden.likeCountHidden && hidden.likeCount == 0)
            let bobs = try await store.setLike(postID: post, viewer: bob, liked: true)
            #expect(bobs.likeCount == nil && bobs.viewerHasLiked, "hidden from the one who liked")
            let alices = try await store.setLike(postID: post, viewer: alice, liked: true)
            #expect(alices.likeCount == 2, "the author sees the count")
            let events = try await sink.take().filter { if case .activityChanged = $0 { false } else { true } }
            guard events.count == 3,
                case .likeCountHiddenChanged(post, alice, true, 0, hidden.version) = events[0],
                case .likeChanged(let byBob) = events[1], case .likeChanged(let byAlice) = events[2]
            else {
                Issue.record("unexpected events: \(events)")
                return
            }
            #expect(byBob.countHidden && byBob.authorID == alice && byBob.likeCount == 1)
            #expect(byAlice.countHidden && byAlice.likeCount == 2)
            let stored = try #require(try await store.post(id: post, viewer: bob))
            #expect(stored.likeCountHidden && stored.likeCount == 2, "the store keeps the exact count; showing decides")
            #expect(stored.seen(by: bob).likeCount == nil && stored.seen(by: alice).likeCount == 2)
        }
    }

    @Test(arguments: StoreFactory.all)
    func profileChangesPublishTheNewSummary(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            _ = try await sink.take()
            _ = try await store.updateProfile(userID: alice, displayName: "Alice", bio: nil)
            #expect(try await sink.take().isEmpty, "nothing changed")
            _ = try await store.updateProfile(userID: alice, displayName: "Alice A.", bio: nil)
            _ = try await store.setAvatar(userID: alice, files: AvatarFiles(small: "s.jpg", large: "l.jpg"))
            let users = try await sink.take().compactMap { event -> UserSummary? in
                if case .profileChanged(let user) = event { user } else { nil }
            }
            #expect(users.map(\.displayName) == ["Alice A.", "Alice A."])
            #expect(users.map(\.avatarURL) == [nil, "/media/s.jpg"])
        }
    }

    @Test(arguments: StoreFactory.all)
    func failedChangesPublishNothing(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let post = try await store.photoPost(by: alice)
            _ = try await sink.take()
            await #expect(throws: StoreError.self) {
                _ = try await store.setLike(postID: 999, viewer: bob, liked: true)
            }
            await #expect(throws: StoreError.forbidden) { _ = try await store.deletePost(id: post, viewer: bob) }
            await #expect(throws: StoreError.self) {
                _ = try await store.addComment(postID: 999, author: bob, text: "x")
            }
            #expect(try await sink.take().isEmpty)
        }
    }
}
