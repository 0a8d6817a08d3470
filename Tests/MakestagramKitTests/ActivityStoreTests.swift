import Foundation
import Incremental
import MakestagramAPI
import MakestagramKit
import TestFixtures
import Testing

@Suite struct ActivityStoreTests {
    @Test @MainActor func theUnreadCountFollowsTheStreamAndAShownListReloads() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            let bob = try await server.signedUp("bob")
            let carol = try await server.signedUp("carol")
            let shared = try await alice.share("chelsea.jpg", caption: "Cat")
            var counts: [Int] = []
            let watching = alice.activity.unreadCount.observe { counts.append($0) }
            alice.live.start()
            try await eventually("alice's stream is live") { alice.live.status.value == .live }

            _ = try await bob.client.like(shared.id)
            try await eventually("bob's like raises the count") { alice.activity.unreadCount.value == 1 }
            alice.activity.isShown = true
            try await alice.activity.refresh()
            #expect(alice.activity.groups.value.map(\.kind) == [.like])

            _ = try await carol.client.like(shared.id)
            _ = try await carol.client.follow("alice")
            // The list may have been loaded again after the follow committed but before its count arrived.
            try await eventually("the shown list loads again and the count follows") {
                alice.activity.groups.value.map(\.kind) == [.follow, .like]
                    && alice.activity.groups.value.last?.actorCount == 2 && alice.activity.unreadCount.value == 3
            }
            try await alice.activity.markShownAsRead()
            #expect(alice.activity.unreadCount.value == 0)
            #expect(alice.activity.groups.value.allSatisfy { !$0.unread })
            _ = try await bob.client.unlike(shared.id)
            try await eventually("the unlike leaves carol alone") {
                alice.activity.groups.value.last?.actors.map(\.username) == ["carol"]
            }
            #expect(counts.first == 0 && counts.last == 0 && counts.contains(3))
            _ = watching
            alice.live.stop()
        }
    }
}
