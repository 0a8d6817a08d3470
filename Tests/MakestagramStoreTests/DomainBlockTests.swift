import Foundation
import MakestagramAPI
import MakestagramStore
import Testing

/// Blocks of whole servers, on every store: the moderators' are logged with the domain, published through the change
/// log and answered from memory for the server and its subdomains; a user's own mark the blocks they make, so that
/// lifting them lifts those and no block made one by one.
@Suite struct DomainBlockTests {
    @Test func domainNamesAreReadOneWay() {
        for text in [
            "example.social", "Example.Social.", "https://example.social:8443/users/x", "@bob@example.social",
            " example.social ",
        ] {
            #expect(DomainName.normalized(text) == "example.social", "\(text)")
        }
        for text in [
            "", "social", "exa mple.social", "-bad.social", "a..b", "ex\u{0}ample.social", "exämple.social",
            "example.social:port", String(repeating: "a", count: 64) + ".social",
        ] {
            #expect(DomainName.normalized(text) == nil, "\(text)")
        }
        #expect(
            DomainName.covering("a.b.example.social") == ["a.b.example.social", "b.example.social", "example.social"])
        #expect(DomainName.covers("example.social", host: "img.example.social"))
        #expect(!DomainName.covers("example.social", host: "notexample.social"))
        #expect(DomainName.host(ofUsername: "bob@Peer.test:8443") == "peer.test")
        #expect(DomainName.host(ofUsername: "bob") == nil)
    }

    @Test(arguments: StoreFactory.all)
    func moderatorsBlocksAreLoggedPublishedAndKnownInMemory(factory: StoreFactory) async throws {
        let sink = RecordingSink()
        try await factory.with(sink) { made in
            let store = made.store
            let warden = try await store.user("warden")
            let bob = try await store.saveRemoteActor(FederationRecordsTests.document("bob"))
            let sub = try await store.saveRemoteActor(
                FederationRecordsTests.document("sue", host: "img.peer.test:8080"))
            _ = try await store.saveRemoteActor(FederationRecordsTests.document("peer.test", host: "other.test"))
            #expect(
                Set(try await store.remoteUsers(onDomain: "peer.test").map(\.id)) == [bob.userID, sub.userID],
                "its subdomains too, and not a namesake elsewhere")

            #expect(
                try await store.setDomainBlock(domain: "peer.test", severity: .limit, moderator: warden, reason: ""))
            #expect(
                try await store.setDomainBlock(
                    domain: "peer.test", severity: .suspend, moderator: warden, reason: "spam"))
            #expect(
                try await !store.setDomainBlock(
                    domain: "peer.test", severity: .suspend, moderator: warden, reason: "x"),
                "no change, nothing logged")
            try await made.settle()
            #expect(store.domainSeverity(ofHost: "peer.test") == .suspend)
            #expect(store.domainSeverity(ofHost: "img.peer.test") == .suspend)
            #expect(store.domainSeverity(ofHost: "notpeer.test") == nil)
            #expect(store.domainSeverity(ofHost: "peer.test.evil") == nil)
            #expect(
                try await store.domainBlocks().map { [$0.domain, $0.severity.rawValue, $0.reason] } == [
                    ["peer.test", "suspend", "spam"]
                ])
            #expect(
                sink.take().filter { if case .domainBlockChanged = $0 { true } else { false } } == [
                    .domainBlockChanged(domain: "peer.test", severity: .limit),
                    .domainBlockChanged(domain: "peer.test", severity: .suspend),
                ])
            let log = try await store.moderationLog(page: PageRequest(limit: 5)).items
            #expect(log.map(\.action) == ["suspend_domain", "limit_domain"])
            #expect(log.map(\.domain) == ["peer.test", "peer.test"] && log[0].moderator == "warden")

            #expect(try await store.setDomainBlock(domain: "peer.test", severity: nil, moderator: warden, reason: ""))
            try await made.settle()
            #expect(store.domainSeverity(ofHost: "peer.test") == nil)
            #expect(try await store.domainBlocks().isEmpty)
            #expect(sink.take().contains(.domainBlockChanged(domain: "peer.test", severity: nil)))
        }
    }

    @Test(arguments: StoreFactory.all)
    func aUsersServerBlockLiftsOnlyTheBlocksItMade(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            let alice = try await store.user("alice")
            let bob = try await store.saveRemoteActor(FederationRecordsTests.document("bob"))
            let dan = try await store.saveRemoteActor(FederationRecordsTests.document("dan"))
            _ = try await store.setFollow(viewer: bob.userID, username: "alice", following: true)
            #expect(try await store.setBlock(viewer: alice, username: dan.username, blocking: true))

            #expect(try await store.setDomainBlock(viewer: alice, domain: "peer.test", blocking: true))
            #expect(try await !store.setDomainBlock(viewer: alice, domain: "peer.test", blocking: true))
            for person in [bob, dan] {
                _ = try await store.setBlock(
                    viewer: alice, username: person.username, blocking: true, domain: "peer.test")
            }
            #expect(try await store.domainBlocks(viewer: alice) == ["peer.test"])
            #expect(try await store.domainBlockers(ofHost: "img.peer.test").map(\.user) == [alice])
            #expect(try await store.domainBlockers(ofHost: "other.test").isEmpty)
            #expect(try await store.blockedByDomain(viewer: alice, domain: "peer.test") == ["bob@peer.test"])
            #expect(try await store.profile(username: "alice", viewer: alice)?.followerCount == 0)

            #expect(try await store.setDomainBlock(viewer: alice, domain: "peer.test", blocking: false))
            #expect(try await store.domainBlocks(viewer: alice).isEmpty)
        }
    }
}
