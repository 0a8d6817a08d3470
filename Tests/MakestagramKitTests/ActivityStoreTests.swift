import Foundation
import Incremental
import MakestagramAPI
import TestFixtures
import Testing

@testable import MakestagramKit

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

@Suite struct ActivityReloadTests {
    /// Counts that arrive while the list is shown load it once, and those that arrive while that load is on its
    /// way load it once more after it, never once per count: a client never floods the server, and the list still
    /// ends current.
    @Test @MainActor func aBurstOfCountsCoalescesIntoOneReloadMore() async throws {
        try await KitServer.run { server in
            let transport = SwitchableTransport()
            let alice = try await server.signedUp("alice", transport: transport)
            let bob = try await server.signedUp("bob")
            let shared = try await alice.share("chelsea.jpg")
            alice.activity.isShown = true
            let before = transport.requests.filter { $0.hasSuffix("/activity") }.count
            _ = try await bob.client.like(shared.id)
            // Fifty counts before the reload starts, then fifty while its request is on its way (the main actor is
            // held throughout each burst, so the reload cannot finish in between).
            for count in 1...50 { alice.activity.received(unreadCount: count) }
            await Task.yield()
            for count in 51...100 { alice.activity.received(unreadCount: count) }
            try await eventually("the list shows bob's like") { alice.activity.groups.value.map(\.kind) == [.like] }
            try await Task.sleep(for: .milliseconds(300))
            let reloads = transport.requests.filter { $0.hasSuffix("/activity") }.count - before
            #expect(reloads == 2, "one reload on its way and one after it, not \(reloads)")
        }
    }
}
