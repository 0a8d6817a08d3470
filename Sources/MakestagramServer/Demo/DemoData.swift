import Foundation
import HummingbirdBcrypt
import Logging
import MakestagramAPI
import MakestagramStore

/// A small living world for newcomers: four users who follow each other, photo posts, likes and comments.
/// Seeding is skipped when the demo users exist, so starting twice with `--demo` adds nothing.
struct DemoData<S: Store> {
    let store: S
    let worker: PhotoWorker
    let bcryptCost: UInt8

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

    func seed(logger: Logger) async throws {
        if try await store.credentials(username: Self.users[0].username) != nil {
            logger.info("demo data already present")
            return
        }
        var ids: [String: Int64] = [:]
        let hash = Bcrypt.hash(Self.password, cost: bcryptCost)
        for user in Self.users {
            let profile = try await store.createUser(
                NewUser(username: user.username, displayName: user.name, passwordHash: hash))
            ids[user.username] = profile.id
        }
        for follower in Self.users {
            for followee in Self.users where followee.username != follower.username {
                _ = try await store.setFollow(
                    viewer: ids[follower.username]!, username: followee.username, following: true)
            }
        }
        var postIDs: [Int64] = []
        for post in Self.posts {
            guard
                let url = Bundle.module.url(forResource: post.photo, withExtension: nil, subdirectory: "Resources/demo")
            else { continue }
            let stored = try await worker.store(try Data(contentsOf: url))
            let created = try await store.createPost(
                NewPost(
                    authorID: ids[post.author]!, caption: post.caption, width: stored.width, height: stored.height,
                    full: stored.full, thumb: stored.thumb, variants: stored.variants))
            postIDs.append(created.id)
        }
        let comments = ["Wow 😍", "This is great", "Where was this?", "Love it!"]
        for (index, postID) in postIDs.enumerated() {
            for (offset, user) in Self.users.enumerated() where (index + offset) % 4 != 0 {
                _ = try await store.setLike(postID: postID, viewer: ids[user.username]!, liked: true)
            }
            let commenter = Self.users[(index + 1) % Self.users.count].username
            _ = try await store.addComment(
                postID: postID, author: ids[commenter]!, text: comments[index % comments.count])
        }
        logger.notice(
            "demo data seeded",
            metadata: ["users": "\(Self.users.map(\.username).joined(separator: ", "))"])
    }
}
