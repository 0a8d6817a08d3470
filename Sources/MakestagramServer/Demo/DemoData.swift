import Foundation
import Logging
import MakestagramAPI
import MakestagramCore
import MakestagramStore

/// A small living world for newcomers: four users who follow each other, photo posts and an album, likes and
/// comments, made through the same use cases as everyone's (without their rate limits). Seeding is skipped when the demo users
/// exist, so starting twice with `--demo` adds nothing.
struct DemoData<S: Store> {
    let core: Core<S>

    var store: S { core.store }

    /// Every demo account logs in with this password.
    static var password: String { "makestagram" }

    static var users: [(username: String, name: String)] {
        [("alice", "Alice Archer"), ("bob", "Bob Baker"), ("carol", "Carol Chen"), ("dave", "Dave Diaz")]
    }

    static var posts: [(author: String, photo: String, caption: String)] {
        [
            ("alice", "hubble.jpg", "Deep field: every smudge here is a galaxy 🌌"),
            ("bob", "chelsea.jpg", "Chelsea supervising the home office again"),
            ("carol", "rocket.jpg", "Launch day! Watched it go from the causeway 🚀"),
            ("dave", "astronaut.jpg", "Portrait of a very patient astronaut"),
            ("alice", "chelsea.webp", "Bob's cat came to visit"),
        ]
    }

    /// An album: its author, its photos in order with their alt texts, and its caption.
    static var album: (author: String, photos: [(file: String, altText: String)], caption: String) {
        (
            "carol",
            [
                ("rocket.jpg", "A white rocket on its launch pad at dusk, floodlights on"),
                ("astronaut.jpg", "An astronaut in an orange suit, smiling, a flag behind her"),
                ("hubble.jpg", "Thousands of galaxies of every colour on black"),
            ],
            "Space week at the museum: three favourites #space"
        )
    }

    func seed(logger: Logger) async throws {
        if try await store.credentials(username: Self.users[0].username) != nil {
            logger.info("demo data already present")
            return
        }
        var ids: [String: Int64] = [:]
        for user in Self.users {
            let profile = try await core.accounts.create(
                username: user.username, password: Self.password, displayName: user.name)
            ids[user.username] = profile.id
        }
        for follower in Self.users {
            for followee in Self.users where followee.username != follower.username {
                _ = try await core.relationships.follow(followee.username, by: ids[follower.username]!, following: true)
            }
        }
        var postIDs: [Int64] = []
        for post in Self.posts {
            guard
                let url = Bundle.module.url(forResource: post.photo, withExtension: nil, subdirectory: "Resources/demo")
            else { continue }
            let photo = try Data(contentsOf: url)
            let created = try await core.posting.create(by: ids[post.author]!) {
                NewPhoto(photo: photo, caption: post.caption)
            }
            postIDs.append(created.id)
        }
        var uploads: [Int64] = []
        for photo in Self.album.photos {
            guard
                let url = Bundle.module.url(forResource: photo.file, withExtension: nil, subdirectory: "Resources/demo")
            else { continue }
            let data = try Data(contentsOf: url)
            uploads.append(
                try await core.posting.upload(by: ids[Self.album.author]!) {
                    NewPhoto(photo: data, caption: nil, altText: photo.altText)
                }.id)
        }
        if !uploads.isEmpty {
            postIDs.append(
                try await core.posting.create(
                    by: ids[Self.album.author]!, fromUploads: uploads, caption: Self.album.caption
                )
                .id)
        }
        let comments = ["Wow 😍", "This is great", "Where was this?", "Love it!"]
        for (index, postID) in postIDs.enumerated() {
            for (offset, user) in Self.users.enumerated() where (index + offset) % 4 != 0 {
                _ = try await core.interactions.like(postID: postID, by: ids[user.username]!, liked: true)
            }
            let commenter = Self.users[(index + 1) % Self.users.count].username
            _ = try await core.interactions.comment(
                on: postID, by: ids[commenter]!, text: comments[index % comments.count])
        }
        logger.notice(
            "demo data seeded",
            metadata: ["users": "\(Self.users.map(\.username).joined(separator: ", "))"])
    }
}
