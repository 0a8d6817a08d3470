import Foundation
import MakestagramAPI
import MakestagramStore
import Testing

/// Third-party apps in the store: registrations, single-use codes, tokens with scopes, revocation, and photos
/// uploaded ahead of their post, on every store.
@Suite struct AppStoreTests {
    func app(_ store: any Store, name: String = "Pics") async throws -> OAuthApp {
        try await store.createOAuthApp(
            NewOAuthApp(
                clientID: UUID().uuidString, secretHash: [UInt8](repeating: 1, count: 32), name: name, website: nil,
                redirectURIs: ["https://a.example/cb", "urn:ietf:wg:oauth:2.0:oob"], scopes: "read write"))
    }

    @Test(arguments: StoreFactory.all)
    func codesWorkOnceAndTokensCarryTheirScopesUntilRevoked(factory: StoreFactory) async throws {
        let sink = RecordingSink()
        try await factory.with(sink) { made in
            let store = made.store
            let alice = try await store.user("alice")
            let app = try await app(store)
            #expect(try await store.oauthApp(clientID: app.clientID) == app)
            #expect(app.redirectURIs == ["https://a.example/cb", "urn:ietf:wg:oauth:2.0:oob"])
            let grant = AuthorizationGrant(
                appID: app.id, userID: alice, redirectURI: "https://a.example/cb", scopes: "read",
                codeChallenge: "abc")
            let code = [UInt8](repeating: 2, count: 32)
            try await store.createAuthorizationCode(
                codeHash: code, grant: grant, expiresAt: Date().addingTimeInterval(60))
            #expect(try await store.redeemAuthorizationCode(codeHash: code) == grant)
            #expect(try await store.redeemAuthorizationCode(codeHash: code) == nil, "once")
            let late = [UInt8](repeating: 3, count: 32)
            try await store.createAuthorizationCode(
                codeHash: late, grant: grant, expiresAt: Date().addingTimeInterval(-1))
            #expect(try await store.redeemAuthorizationCode(codeHash: late) == nil, "expired")

            let token = [UInt8](repeating: 4, count: 32)
            try await store.createAppSession(userID: alice, tokenHash: token, appID: app.id, scopes: "read")
            let identity = try #require(try await store.session(tokenHash: token))
            #expect(identity.user.username == "alice" && identity.appID == app.id && identity.scopes == "read")
            let own = [UInt8](repeating: 5, count: 32)
            try await store.createSession(userID: alice, tokenHash: own)
            #expect(try await store.session(tokenHash: own)?.scopes == nil, "first-party sessions have no scopes")
            let listed = try await store.authorizedApps(userID: alice)
            #expect(listed.map(\.name) == ["Pics"] && listed[0].scopes == "read")

            try await made.settle()
            _ = sink.take()
            #expect(try await store.revokeApp(appID: app.id, userID: alice) == 1)
            try await made.settle()
            #expect(sink.take() == [.sessionEnded(tokenHash: token)])
            #expect(try await store.session(tokenHash: token) == nil)
            #expect(try await store.session(tokenHash: own) != nil, "the user's own session stays")
            #expect(try await store.authorizedApps(userID: alice).isEmpty)
        }
    }

    @Test(arguments: StoreFactory.all)
    func aPhotoUploadedAheadBecomesAPostOnceAndOnlyForItsOwner(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let image = StoredPhoto(
                width: 40, height: 30, full: StoredVariant(fileName: "up-f.jpg", width: 40, height: 30),
                thumb: StoredVariant(fileName: "up-t.jpg", width: 32, height: 32),
                variants: [StoredVariant(fileName: "up-320.webp", width: 320, height: 240)])
            let upload = try await store.createMediaUpload(
                image, userID: alice, expiringBefore: Date().addingTimeInterval(-60))
            #expect(upload.expired.isEmpty)
            #expect(
                try await store.referencedMediaFiles().names.isSuperset(of: ["up-f.jpg", "up-t.jpg", "up-320.webp"]))
            #expect(try await store.mediaUpload(id: upload.id, userID: bob) == nil)
            await #expect(throws: StoreError.notFound("media")) {
                _ = try await store.createPost(fromUploads: [upload.id], userID: bob, caption: "mine now")
            }
            let post = try await store.createPost(fromUploads: [upload.id], userID: alice, caption: "Hello #world")
            #expect(post.caption == "Hello #world" && post.image.variants.count == 1 && post.author.id == alice)
            #expect(
                try await store.posts(tag: "world", viewer: bob, page: PageRequest(limit: 5)).items.map(\.id) == [
                    post.id
                ])
            await #expect(throws: StoreError.notFound("media"), "once") {
                _ = try await store.createPost(fromUploads: [upload.id], userID: alice, caption: "again")
            }
            // An old upload nobody posted is forgotten, its files answered for removal.
            var stale = image
            stale.full.fileName = "old-f.jpg"
            stale.thumb.fileName = "old-t.jpg"
            stale.variants = []
            _ = try await store.createMediaUpload(stale, userID: alice, expiringBefore: Date().addingTimeInterval(-60))
            let next = try await store.createMediaUpload(
                image, userID: alice, expiringBefore: Date().addingTimeInterval(60))
            #expect(Set(next.expired) == ["old-f.jpg", "old-t.jpg"])
        }
    }
}
