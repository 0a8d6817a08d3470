import Crypto
import Foundation
import MakestagramAPI
import MakestagramStore

/// What other servers must learn of each change, written once: the activities a change causes and the inboxes they
/// go to. Federation's consumer of the change log (``FederationConsumer``) queues what these answer.
extension Federation {
    /// The deliveries `changes` cause, in their order. Likes, most of the log, cause deliveries only on posts from
    /// other servers: which posts those are is read once for the whole batch.
    func deliveries(for changes: [LoggedChange]) async throws -> [OutboundDelivery] {
        let posts = changes.compactMap { change -> Int64? in
            if case .likeChanged(let like) = change.event { like.postID } else { nil }
        }
        let remote = try await store.remotePosts(among: Array(Set(posts)))
        var deliveries: [OutboundDelivery] = []
        for change in changes {
            // What the follows of later changes are, as of this one.
            followerInboxes.note(change.event)
            switch change.event {
            case .likeChanged(let like) where !remote.contains(like.postID): continue
            default: deliveries += try await self.deliveries(for: change)
            }
        }
        return deliveries
    }

    /// The deliveries `change` causes.
    func deliveries(for change: LoggedChange) async throws -> [OutboundDelivery] {
        let stamp = Int64(change.at.timeIntervalSince1970 * 1000)
        switch change.event {
        case .postCreated(let post, _):
            guard try await store.remoteActor(user: post.author.id) == nil else { return [] }
            let (note, mentioned) = try await addressedNote(of: post)
            return try await toFollowers(of: post.author, create(note), and: mentioned)
        case .captionEdited(let postID, _, _, let version), .imageChanged(let postID, let version):
            // Read as its author reads it: a private account's post too.
            guard let author = try await store.postAuthors([postID])[postID],
                let post = try await store.post(id: postID, viewer: author),
                try await store.remoteActor(user: post.author.id) == nil
            else { return [] }
            let (note, mentioned) = try await addressedNote(of: post)
            let update: JSONObject = [
                "@context": ActivityStreams.context, "id": "\(postURI(postID))#updates/\(version)", "type": "Update",
                "actor": actorURI(post.author.username), "to": note["to"] ?? [], "cc": note["cc"] ?? [],
                "object": note,
            ]
            return try await toFollowers(of: post.author, update, and: mentioned)
        case .postDeleted(let postID, _, let audience):
            guard let authorID = audience.first, try await store.remoteActor(user: authorID) == nil,
                let author = try await store.profile(id: authorID, viewer: authorID)
            else { return [] }
            let actor = actorURI(author.username)
            let delete: JSONObject = [
                "@context": "https://www.w3.org/ns/activitystreams", "id": "\(postURI(postID))#delete",
                "type": "Delete", "actor": actor, "to": [ActivityStreams.publicAudience],
                "object": ["id": postURI(postID), "type": "Tombstone"],
            ]
            return try await toFollowers(of: author.summary, delete)
        case .profileChanged(let user):
            return try await actorUpdate(of: user, stamp: stamp)
        case .privacyChanged(let userID, _):
            // Their document's `manuallyApprovesFollowers` changed: other servers show their posts accordingly.
            guard let profile = try await store.profile(id: userID, viewer: userID) else { return [] }
            return try await actorUpdate(of: profile.summary, stamp: stamp)
        case .likeChanged(let change):
            // A like here of a post from elsewhere goes to its author's server.
            guard let (note, author) = try await remoteTarget(change.postID, by: change.actor.id) else { return [] }
            let actor = actorURI(change.actor.username)
            let likeID = "\(actor)#likes/\(change.postID)"
            if change.liked {
                let like: JSONObject = [
                    "@context": "https://www.w3.org/ns/activitystreams", "id": "\(likeID)/\(stamp)", "type": "Like",
                    "actor": actor, "object": note,
                ]
                return [delivery(like, to: author.inbox, from: change.actor)]
            }
            let undo: JSONObject = [
                "@context": "https://www.w3.org/ns/activitystreams", "id": "\(likeID)/undo/\(stamp)", "type": "Undo",
                "actor": actor, "object": ["id": likeID, "type": "Like", "actor": actor, "object": note],
            ]
            return [delivery(undo, to: author.inbox, from: change.actor)]
        case .commentCreated(let comment, _, _):
            // A comment here on a post from elsewhere is a reply there.
            guard let (note, author) = try await remoteTarget(comment.postId, by: comment.author.id) else {
                return try await replyToFollowers(comment)
            }
            let actor = actorURI(comment.author.username)
            // A reply to someone private here (whose posts are for their followers) is not public either: it goes to
            // the replier's followers and the people it names, as Mastodon's followers-only replies do.
            let guarded = try await store.profile(id: author.userID, viewer: author.userID)?.isPrivate ?? true
            let mentioned = await mentioned(in: comment.text).filter { $0.uri != author.uri }
            let reply = replyNote(
                comment, inReplyTo: note, to: guarded ? ["\(actor)/followers"] : [ActivityStreams.publicAudience],
                cc: (guarded ? [author.uri] : [author.uri, "\(actor)/followers"]) + mentioned.map(\.uri),
                elsewhere: [author] + mentioned)
            let activity = create(reply)
            return Self.inboxes([], adding: [author] + mentioned).map {
                delivery(activity, to: $0, from: comment.author)
            }
        case .commentDeleted(let commentID, let postID, _, _, let writerID):
            guard try await store.remotePostURI(of: postID) != nil else {
                return try await replyDeletedAtFollowers(commentID, on: postID, by: writerID)
            }
            // A comment here on a post from elsewhere, deleted: its reply there goes too.
            guard
                let authorID = try await store.postAuthors([postID])[postID],
                let author = try await store.remoteActor(user: authorID),
                try await store.remoteActor(user: writerID) == nil,
                let writer = try await store.profile(id: writerID, viewer: writerID)?.summary
            else { return [] }
            let delete = replyDelete(commentID, by: writer)
            return Self.inboxes([], adding: [author]).map { delivery(delete, to: $0, from: writer) }
        case .followChanged(let follower, let followee, let following):
            let remoteFollower = try await store.remoteActor(user: follower)
            let remoteFollowee = try await store.remoteActor(user: followee)
            if following, let remote = remoteFollower, remoteFollowee == nil {
                // A remote person follows someone here now (at once, or their request was approved): Accept.
                guard let local = try await store.profile(id: followee, viewer: followee),
                    let followID = try await store.inboundFollow(actor: follower, target: followee)
                else { return [] }
                return [answer("Accept", to: remote, followID: followID, from: local.summary)]
            }
            if !following, remoteFollower == nil, let remote = remoteFollowee,
                let local = try await store.profile(id: follower, viewer: follower)
            {
                return [undoFollow(of: remote, by: local.summary, stamp: stamp)]
            }
            if !following, let remote = remoteFollower, remoteFollowee == nil,
                try await store.profile(id: follower, viewer: follower) != nil,
                let local = try await store.profile(id: followee, viewer: followee),
                let followID = try await store.inboundFollow(actor: follower, target: followee)
            {
                // A remote person's follow ended here, not by their Undo (which forgets their Follow first): the
                // person they followed removed them, or blocked them or their server. Reject, so that their server
                // stops counting it and stops showing them what it still receives for others there.
                return [answer("Reject", to: remote, followID: followID, from: local.summary)]
            }
            return []
        case .followRequestChanged(let requester, let target, let pending):
            let remoteRequester = try await store.remoteActor(user: requester)
            let remoteTarget = try await store.remoteActor(user: target)
            if remoteRequester == nil, let remote = remoteTarget,
                let local = try await store.profile(id: requester, viewer: requester)
            {
                if pending {
                    // A follow of someone elsewhere waits for their server's Accept.
                    let actor = actorURI(local.username)
                    let follow: JSONObject = [
                        "@context": "https://www.w3.org/ns/activitystreams",
                        "id": "\(actor)#follows/\(remote.userID)/\(stamp)", "type": "Follow", "actor": actor,
                        "object": remote.uri,
                    ]
                    return [delivery(follow, to: remote.inbox, from: local.summary)]
                }
                // Withdrawn, unless it ended because their server accepted it.
                if try await store.followed(by: requester, among: [target]).isEmpty {
                    return [undoFollow(of: remote, by: local.summary, stamp: stamp)]
                }
                return []
            }
            if !pending, let remote = remoteRequester, remoteTarget == nil,
                try await store.followed(by: requester, among: [target]).isEmpty,
                let local = try await store.profile(id: target, viewer: target),
                let followID = try await store.inboundFollow(actor: requester, target: target)
            {
                // A remote person's request declined: Reject.
                return [answer("Reject", to: remote, followID: followID, from: local.summary)]
            }
            return []
        case .userRemoved(let user, let username, .deleting) where !username.contains("@"):
            // A local account being deleted: its actor's `Delete`, as Mastodon sends it, to every server that may
            // hold its posts (its followers' first, then every server someone here came from), signed with its key
            // (its row waits for it, ``FederationStoring/queueDeliveries(_:farewells:consumer:batch:taking:)``). An
            // account that never had a key was never seen elsewhere.
            guard try await store.actorKey(user: user) != nil else { return [] }
            let actor = actorURI(username)
            let delete: JSONObject = [
                "@context": "https://www.w3.org/ns/activitystreams", "id": farewellID(of: username), "type": "Delete",
                "actor": actor, "to": [ActivityStreams.publicAudience], "object": actor,
            ]
            let followers = try await followerInboxes.inboxes(of: user, in: store)
            let others = Set(followers)
            let known = try await store.knownInboxes().filter { !others.contains($0) }
            return deliveries(delete, to: followers + known, from: user)
        case .reportForwarded(let postID, let reason):
            // A report of a post from elsewhere, forwarded to its server as Mastodon does: a `Flag` from this
            // server's instance actor (the reporter is not named) naming the author and the post.
            guard let (note, author) = try await remotePost(postID) else { return [] }
            let flag: JSONObject = [
                "@context": "https://www.w3.org/ns/activitystreams",
                "id": "\(options.base)/reports/\(postID)/\(stamp)", "type": "Flag", "actor": instanceActorURI,
                "content": reason, "object": [author.uri, note],
            ]
            return [delivery(flag, to: author.inbox, from: nil)]
        default:
            return []
        }
    }

    /// The id of the `Delete` of `username`'s actor, sent when their account is deleted.
    func farewellID(of username: String) -> String {
        "\(actorURI(username))#delete"
    }

    /// The accounts from here whose deletion began in `changes`: their farewells are queued with these changes'
    /// deliveries.
    static func farewells(in changes: [LoggedChange]) -> [Int64] {
        changes.compactMap { change in
            guard case .userRemoved(let user, let username, .deleting) = change.event, !username.contains("@") else {
                return nil
            }
            return user
        }
    }

    /// The `Note` id and remote author of post `postID`, when it came from another server.
    func remotePost(_ postID: Int64) async throws -> (note: String, author: RemoteActor)? {
        guard let note = try await store.remotePostURI(of: postID)?.uri,
            let authorID = try await store.postAuthors([postID])[postID],
            let author = try await store.remoteActor(user: authorID)
        else { return nil }
        return (note, author)
    }

    /// The `Note` id and remote author of post `postID`, when it came from another server and `user` is from here.
    func remoteTarget(_ postID: Int64, by user: Int64) async throws -> (String, RemoteActor)? {
        guard try await store.remoteActor(user: user) == nil else { return nil }
        return try await remotePost(postID)
    }

    /// A comment here, by someone here, on a post from here, as a reply to the servers that have the post (where its
    /// author has followers): public for a public account's post, for its followers for a private account's, as the
    /// post is. People elsewhere it names are sent it too when the post is public. Comments that came from other
    /// servers are not sent on: their writers' servers sent them.
    func replyToFollowers(_ comment: Comment) async throws -> [OutboundDelivery] {
        guard try await store.remoteActor(user: comment.author.id) == nil,
            let authorID = try await store.postAuthors([comment.postId])[comment.postId],
            try await store.remoteActor(user: authorID) == nil,
            let author = try await store.profile(id: authorID, viewer: authorID)
        else { return [] }
        let postActor = actorURI(author.username)
        let mentioned = author.isPrivate ? [] : await mentioned(in: comment.text)
        let reply = replyNote(
            comment, inReplyTo: postURI(comment.postId),
            to: author.isPrivate ? ["\(postActor)/followers"] : [ActivityStreams.publicAudience],
            cc: (author.isPrivate ? [postActor] : [postActor, "\(postActor)/followers"]) + mentioned.map(\.uri),
            elsewhere: mentioned)
        let inboxes = Self.inboxes(try await followerInboxes.inboxes(of: authorID, in: store), adding: mentioned)
        return deliveries(create(reply), to: inboxes, from: comment.author.id)
    }

    /// A comment here, by someone here, on a post from here, deleted: the servers that have the post (where its author
    /// has followers) remove its reply. A comment deleted with its post goes with the post's `Delete`.
    func replyDeletedAtFollowers(_ commentID: Int64, on postID: Int64, by writerID: Int64) async throws
        -> [OutboundDelivery]
    {
        guard try await store.remoteActor(user: writerID) == nil,
            let authorID = try await store.postAuthors([postID])[postID],
            try await store.remoteActor(user: authorID) == nil,
            let writer = try await store.profile(id: writerID, viewer: writerID)?.summary
        else { return [] }
        return deliveries(
            replyDelete(commentID, by: writer), to: try await followerInboxes.inboxes(of: authorID, in: store),
            from: writerID)
    }

    /// The `Delete` of the reply that comment `commentID` is elsewhere, from its writer.
    func replyDelete(_ commentID: Int64, by writer: UserSummary) -> JSONObject {
        [
            "@context": "https://www.w3.org/ns/activitystreams", "id": "\(commentURI(commentID))#delete",
            "type": "Delete", "actor": actorURI(writer.username), "to": [ActivityStreams.publicAudience],
            "object": ["id": commentURI(commentID), "type": "Tombstone"],
        ]
    }

    /// An `Update` of local person `user`'s actor document, to the servers of their followers.
    func actorUpdate(of user: UserSummary, stamp: Int64) async throws -> [OutboundDelivery] {
        guard try await store.remoteActor(user: user.id) == nil, let document = try await actor(username: user.username)
        else { return [] }
        let update: JSONObject = [
            "@context": ActivityStreams.context, "id": "\(actorURI(user.username))#updates/\(stamp)",
            "type": "Update", "actor": actorURI(user.username), "to": [ActivityStreams.publicAudience],
            "object": document,
        ]
        return try await toFollowers(of: user, update)
    }

    /// The `Note` of local post `post` as its author's audience reads it, and the people elsewhere it reaches beyond
    /// their followers: a public account's post is public and reaches the people elsewhere it mentions; a private
    /// account's is for their followers only (people elsewhere it mentions see it only if they follow).
    func addressedNote(of post: Post) async throws -> (note: JSONObject, mentioned: [RemoteActor]) {
        guard try await store.profile(id: post.author.id, viewer: post.author.id)?.isPrivate == true else {
            let mentioned = await mentioned(in: post.caption)
            return (note(of: post, mentioning: mentioned), mentioned)
        }
        var note = note(of: post)
        note["to"] = ["\(actorURI(post.author.username))/followers"]
        note["cc"] = [String]()
        return (note, [])
    }

    /// `activity` from `author`, to the inbox of each server where someone follows them, and of each person in
    /// `mentioned` (once per server).
    func toFollowers(of author: UserSummary, _ activity: JSONObject, and mentioned: [RemoteActor] = [])
        async throws -> [OutboundDelivery]
    {
        let inboxes = Self.inboxes(try await followerInboxes.inboxes(of: author.id, in: store), adding: mentioned)
        return deliveries(activity, to: inboxes, from: author.id)
    }

    /// `activity` from `sender`, to each of `inboxes`: its body written once for all.
    func deliveries(_ activity: JSONObject, to inboxes: [String], from sender: Int64) -> [OutboundDelivery] {
        guard !inboxes.isEmpty else { return [] }
        let body = ActivityStreams.data(activity)
        let id = activity["id"] as? String ?? UUID().uuidString
        return inboxes.map { OutboundDelivery(activityID: id, inbox: $0, sender: sender, body: body) }
    }

    /// `inboxes`, then the inbox of each of `people` (their server's shared one, if it has one) not among them yet:
    /// each server once.
    static func inboxes(_ inboxes: [String], adding people: [RemoteActor]) -> [String] {
        var all = inboxes
        for person in people where !all.contains(person.sharedInbox ?? person.inbox) {
            all.append(person.sharedInbox ?? person.inbox)
        }
        return all
    }

    /// `Accept` or `Reject` of the `Follow` `followID` by which `remote` follows `local`.
    func answer(_ type: String, to remote: RemoteActor, followID: String, from local: UserSummary) -> OutboundDelivery {
        let actor = actorURI(local.username)
        let digest = SHA256.hash(data: Data(followID.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        let activity: JSONObject = [
            "@context": "https://www.w3.org/ns/activitystreams",
            "id": "\(actor)#\(type.lowercased())s/\(digest)", "type": type, "actor": actor,
            "object": ["id": followID, "type": "Follow", "actor": remote.uri, "object": actor],
        ]
        return delivery(activity, to: remote.inbox, from: local)
    }

    /// `Undo` of `local`'s follow of `remote`.
    func undoFollow(of remote: RemoteActor, by local: UserSummary, stamp: Int64) -> OutboundDelivery {
        let actor = actorURI(local.username)
        let undo: JSONObject = [
            "@context": "https://www.w3.org/ns/activitystreams",
            "id": "\(actor)#follows/\(remote.userID)/undo/\(stamp)", "type": "Undo", "actor": actor,
            "object": [
                "id": "\(actor)#follows/\(remote.userID)", "type": "Follow", "actor": actor, "object": remote.uri,
            ],
        ]
        return delivery(undo, to: remote.inbox, from: local)
    }

    func delivery(_ activity: JSONObject, to inbox: String, from sender: UserSummary?) -> OutboundDelivery {
        OutboundDelivery(
            activityID: activity["id"] as? String ?? UUID().uuidString, inbox: inbox, sender: sender?.id,
            body: ActivityStreams.data(activity))
    }
}
