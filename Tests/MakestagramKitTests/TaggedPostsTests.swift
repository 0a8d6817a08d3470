import Foundation
import MakestagramAPI
import MakestagramKit
import TestFixtures
import Testing

@Suite struct TaggedPostsTests {
    @Test @MainActor func aTagsPostsComeNewestFirstWhateverItsLetterCaseOrScript() async throws {
        try await KitServer.run { server in
            let ann = try await server.signedUp("ann")
            let first = try await ann.share("chelsea.jpg", caption: "Morning #Café")
            let second = try await ann.share("hubble.jpg", caption: "Night #café #stars")
            let page = try await ann.client.posts(tagged: "CAFÉ")
            #expect(page.items.map(\.id) == [second.id, first.id])
            #expect(try await ann.client.posts(tagged: "stars", limit: 1).items.map(\.id) == [second.id])
            #expect(try await ann.client.posts(tagged: "no such/tag").items.isEmpty)
        }
    }
}
