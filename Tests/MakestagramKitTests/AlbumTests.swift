import Foundation
import Incremental
import MakestagramAPI
import MakestagramKit
import TestFixtures
import Testing

/// Albums through the SDK: several photos shared as one post with their alt texts and progress per photo, read back
/// in order, and one photo's alt text changed by its author reaching another viewer's bound model live.
@Suite struct AlbumTests {
    @Test @MainActor func anAlbumIsSharedInOrderAndItsAltTextsStayLive() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            let bob = try await server.signedUp("bob")
            _ = try await bob.client.follow("alice")
            let progress = LockedPhotoProgress()
            let shared = try await alice.share(
                photos: [
                    PhotoToShare(data: Fixtures.photo("rocket.jpg"), fileName: "rocket.jpg", altText: "A rocket"),
                    PhotoToShare(data: Fixtures.photo("chelsea-gps.heic"), fileName: "chelsea.heic"),
                    PhotoToShare(data: Fixtures.photo("hubble.jpg"), fileName: "hubble.jpg", altText: "Galaxies"),
                ], caption: "Three", crop: .square, progress: { progress.record($0, $1) })
            #expect(shared.photos.value.map(\.altText) == ["A rocket", nil, "Galaxies"])
            #expect(shared.photos.value.allSatisfy { $0.width == $0.height }, "one crop for the whole post")
            #expect(shared.image == shared.photos.value[0])
            // Each photo reported its own progress, to the end, in order.
            let reports = progress.values
            #expect(Set(reports.map(\.photo)) == [0, 1, 2])
            #expect(reports.map(\.photo) == reports.map(\.photo).sorted())
            for photo in 0..<3 { #expect(reports.last { $0.photo == photo }?.fraction == 1) }

            try await bob.homeFeed.refresh()
            let seen = try #require(bob.homeFeed.posts.elements.first)
            #expect(seen.id == shared.id && seen.photos.value.count == 3)
            bob.live.start()
            try await eventually("bob's stream is live") { bob.live.status.value == .live }
            var described: [[String?]] = []
            let bag = DisposeBag()
            seen.photos.observe { described.append($0.map(\.altText)) }.disposed(by: bag)
            try await shared.editAltText("A cat on a sofa", photo: 1)
            #expect(shared.photos.value[1].altText == "A cat on a sofa")
            try await eventually("the new alt text reaches bob") { seen.photos.value[1].altText == "A cat on a sofa" }
            #expect(described.last == ["A rocket", "A cat on a sofa", "Galaxies"])
            await #expect(throws: MakestagramError.self) { try await seen.editAltText("mine", photo: 1) }
            bag.dispose()
            bob.live.stop()

            // An album that cannot be posted leaves nothing behind: the photos uploaded are taken back.
            let before = try await alice.client.posts(by: "alice").items.count
            await #expect(throws: MakestagramError.self) {
                try await alice.share(photos: [
                    PhotoToShare(data: Fixtures.photo("rocket.jpg")),
                    PhotoToShare(data: Data("not a photo".utf8), fileName: "note.jpg"),
                ])
            }
            #expect(try await alice.client.posts(by: "alice").items.count == before)
        }
    }
}

final class LockedPhotoProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [(photo: Int, fraction: Double)] = []

    func record(_ photo: Int, _ fraction: Double) { lock.withLock { recorded.append((photo, fraction)) } }
    var values: [(photo: Int, fraction: Double)] { lock.withLock { recorded } }
}
