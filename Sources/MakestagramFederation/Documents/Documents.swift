import Foundation
import MakestagramAPI
import MakestagramStore

/// The documents other servers read: WebFinger, host-meta, NodeInfo, actors, their collections, and posts as Notes.
extension Federation {
    /// The WebFinger answer for `resource` (`acct:alice@host`, or the actor's URL), or nil when it names nobody here.
    public func webfinger(resource: String) async throws -> JSONObject? {
        let username: String
        if resource.lowercased().hasPrefix("acct:") {
            let handle = resource.dropFirst("acct:".count).drop(while: { $0 == "@" })
            guard let at = handle.lastIndex(of: "@"), handle[handle.index(after: at)...].lowercased() == options.domain
            else { return nil }
            username = handle[..<at].lowercased()
        } else if let name = localUsername(ofActor: resource) {
            username = name
        } else {
            return nil
        }
        guard !username.contains("@"), let profile = try await store.profile(username: username, viewer: 0),
            !profile.username.contains("@")
        else { return nil }
        let actor = actorURI(profile.username)
        return [
            "subject": "acct:\(profile.username)@\(options.domain)",
            "aliases": [actor, "\(options.base)/u/\(profile.username)"],
            "links": [
                ["rel": "self", "type": "application/activity+json", "href": actor],
                [
                    "rel": "http://webfinger.net/rel/profile-page", "type": "text/html",
                    "href": "\(options.base)/u/\(profile.username)",
                ],
            ],
        ]
    }

    /// host-meta (XRD), pointing at WebFinger.
    public var hostMeta: String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">
          <Link rel="lrdd" template="\(options.base)/.well-known/webfinger?resource={uri}"/>
        </XRD>

        """
    }

    /// `/.well-known/nodeinfo`: where the NodeInfo document is.
    public var nodeInfoLinks: JSONObject {
        [
            "links": [
                ["rel": "http://nodeinfo.diaspora.software/ns/schema/2.1", "href": "\(options.base)/nodeinfo/2.1"]
            ]
        ]
    }

    /// NodeInfo 2.1.
    public func nodeInfo(version: String) async throws -> JSONObject {
        let usage = try await store.localUsage()
        return [
            "version": "2.1",
            "software": [
                "name": "makestagram", "version": version,
                "repository": "https://github.com/makestagram/makestagram", "homepage": options.base,
            ],
            "protocols": ["activitypub"],
            "services": ["inbound": [String](), "outbound": [String]()],
            "openRegistrations": true,
            "usage": ["users": ["total": usage.users], "localPosts": usage.posts],
            "metadata": JSONObject(),
        ]
    }

    /// The instance actor: who signs the fetches nobody in particular makes.
    public func instanceActor() async throws -> JSONObject {
        [
            "@context": ActivityStreams.context,
            "id": instanceActorURI, "type": "Application", "preferredUsername": options.domain,
            "inbox": sharedInbox, "outbox": "\(instanceActorURI)/outbox",
            "manuallyApprovesFollowers": true,
            "publicKey": [
                "id": "\(instanceActorURI)#main-key", "owner": instanceActorURI,
                "publicKeyPem": try await keys.publicKeyPEM(for: nil),
            ],
        ]
    }

    /// The actor document of local user `username`, or nil when there is none (or it is a remote person).
    public func actor(username: String) async throws -> JSONObject? {
        guard !username.contains("@") else { return nil }
        guard let profile = try await store.profile(username: username, viewer: 0), !profile.username.contains("@")
        else {
            // An account being deleted shows only its key while its farewell is sent (as Mastodon shows a suspended
            // one), so that servers that do not keep keys can check the `Delete`.
            guard let leaving = try await store.leavingUser(username: username) else { return nil }
            let actor = actorURI(username.lowercased())
            return [
                "@context": ActivityStreams.context, "id": actor, "type": "Person",
                "preferredUsername": username.lowercased(), "inbox": "\(actor)/inbox", "suspended": true,
                "publicKey": [
                    "id": "\(actor)#main-key", "owner": actor,
                    "publicKeyPem": try await keys.publicKeyPEM(for: leaving),
                ],
            ]
        }
        let actor = actorURI(profile.username)
        var document: JSONObject = [
            "@context": ActivityStreams.context,
            "id": actor, "type": "Person", "preferredUsername": profile.username, "name": profile.displayName,
            "summary": ActivityStreams.html(profile.bio, base: options.base),
            "url": "\(options.base)/u/\(profile.username)",
            "inbox": "\(actor)/inbox", "outbox": "\(actor)/outbox",
            "followers": "\(actor)/followers", "following": "\(actor)/following",
            "endpoints": ["sharedInbox": sharedInbox],
            "manuallyApprovesFollowers": profile.isPrivate,
            "discoverable": true,
            "published": ActivityStreams.isoDate(profile.createdAt),
            "publicKey": [
                "id": "\(actor)#main-key", "owner": actor,
                "publicKeyPem": try await keys.publicKeyPEM(for: profile.id),
            ],
        ]
        if let avatar = profile.avatarLargeURL ?? profile.avatarURL {
            document["icon"] = [
                "type": "Image", "mediaType": ActivityStreams.mediaType(of: avatar), "url": options.base + avatar,
            ]
        }
        return document
    }

    /// A followers or following collection: its size (the members are not listed).
    public func collection(username: String, kind: String) async throws -> JSONObject? {
        guard !username.contains("@"), let profile = try await store.profile(username: username, viewer: 0) else {
            return nil
        }
        return [
            "@context": "https://www.w3.org/ns/activitystreams",
            "id": "\(actorURI(profile.username))/\(kind)", "type": "OrderedCollection",
            "totalItems": kind == "followers" ? profile.followerCount : profile.followingCount,
        ]
    }

    /// The outbox: its size, and with `page`, a page of `Create`s of public posts, newest first.
    public func outbox(username: String, page: Bool, before: Int64?) async throws -> JSONObject? {
        guard !username.contains("@"), let profile = try await store.profile(username: username, viewer: 0) else {
            return nil
        }
        let outbox = "\(actorURI(profile.username))/outbox"
        guard page else {
            return [
                "@context": "https://www.w3.org/ns/activitystreams", "id": outbox, "type": "OrderedCollection",
                "totalItems": profile.postCount, "first": "\(outbox)?page=true",
            ]
        }
        let result =
            profile.isPrivate
            ? nil
            : try await store.posts(
                username: profile.username, viewer: 0,
                page: PageRequest(position: before.map { .after($0) } ?? .start, limit: 20))
        var items: [JSONObject] = []
        for post in result?.items ?? [] {
            items.append(create(note(of: post, mentioning: await mentioned(in: post.caption))))
        }
        var document: JSONObject = [
            "@context": ActivityStreams.context, "id": "\(outbox)?page=true" + (before.map { "&max_id=\($0)" } ?? ""),
            "type": "OrderedCollectionPage", "partOf": outbox, "orderedItems": items,
        ]
        if let next = result?.nextKey { document["next"] = "\(outbox)?page=true&max_id=\(next)" }
        return document
    }

    /// The Note of public post `id`, or nil when it is not one anybody may read.
    public func note(postID id: Int64) async throws -> JSONObject? {
        guard let post = try await store.post(id: id, viewer: 0), !post.author.username.contains("@") else {
            return nil
        }
        var note = note(of: post, mentioning: await mentioned(in: post.caption))
        note["@context"] = ActivityStreams.context
        return note
    }

    /// The reply that comment `id` is elsewhere, when anybody may read it: a comment by someone here on a post
    /// everyone may see (one from here, or one kept from elsewhere), addressed as it was sent.
    public func note(commentID id: Int64) async throws -> JSONObject? {
        guard let comment = try await store.comment(id: id, viewer: 0), !comment.author.username.contains("@"),
            let post = try await store.post(id: comment.postId, viewer: 0)
        else { return nil }
        var elsewhere = await mentioned(in: comment.text)
        let inReplyTo: String
        let postActor: String
        if let origin = try await store.remotePostURI(of: post.id),
            let author = try await store.remoteActor(user: post.author.id)
        {
            (inReplyTo, postActor) = (origin.uri, author.uri)
            elsewhere = [author] + elsewhere.filter { $0.uri != author.uri }
        } else {
            (inReplyTo, postActor) = (postURI(post.id), actorURI(post.author.username))
        }
        let followers = "\(actorURI(comment.author.username))/followers"
        var note = replyNote(
            comment, inReplyTo: inReplyTo, to: [ActivityStreams.publicAudience],
            cc: [postActor, followers] + elsewhere.filter { $0.uri != postActor }.map(\.uri), elsewhere: elsewhere)
        note["@context"] = ActivityStreams.context
        return note
    }

    /// The `Note` that comment `comment`, by someone here, is elsewhere: a reply to `inReplyTo`, linking to the post's
    /// page here, addressed `to` and `cc`, its text linking and tagging the people `elsewhere` it names.
    func replyNote(_ comment: Comment, inReplyTo: String, to: [String], cc: [String], elsewhere: [RemoteActor])
        -> JSONObject
    {
        [
            "id": commentURI(comment.id), "type": "Note", "attributedTo": actorURI(comment.author.username),
            "inReplyTo": inReplyTo, "url": postURI(comment.postId),
            "content": html(comment.text, elsewhere: elsewhere),
            "published": ActivityStreams.isoDate(comment.createdAt), "to": to, "cc": cc,
            "tag": mentionTags(of: comment.text, elsewhere: elsewhere),
        ]
    }

    /// The people elsewhere `text` mentions (`@bob@example.social`) whom this server knows, in the order named. A
    /// handle on this server's own domain is a local mention, not one of these.
    func mentioned(in text: String) async -> [RemoteActor] {
        var found: [RemoteActor] = []
        for handle in Mentions.remote(of: text) where !handle.hasSuffix("@\(options.domain)") {
            guard let person = try? await store.profile(username: handle, viewer: 0),
                let actor = try? await store.remoteActor(user: person.id)
            else { continue }
            found.append(actor)
        }
        return found
    }

    /// The `Mention` tags of `text`: people here by their actor, and the people elsewhere in `elsewhere`.
    func mentionTags(of text: String, elsewhere: [RemoteActor]) -> [JSONObject] {
        Mentions.of(text).map { ["type": "Mention", "name": "@\($0)", "href": actorURI($0)] }
            + elsewhere.map { ["type": "Mention", "name": "@\($0.username)", "href": $0.uri] }
    }

    /// `text` as HTML, its mentions of people elsewhere linked to their profiles.
    func html(_ text: String, elsewhere: [RemoteActor]) -> String {
        ActivityStreams.html(
            text, base: options.base,
            elsewhere: Dictionary(
                elsewhere.map { ($0.username, $0.profileURL ?? $0.uri) }, uniquingKeysWith: { a, _ in a }))
    }

    /// A post as a `Note`: its caption as HTML with its hashtags and mentions as tags, every photo an `Image` with
    /// its alt text as `name`. People elsewhere it mentions (`mentioning`, from ``mentioned(in:)``) are tagged and
    /// addressed.
    func note(of post: Post, mentioning elsewhere: [RemoteActor] = []) -> JSONObject {
        let actor = actorURI(post.author.username)
        var tags: [JSONObject] = Hashtags.of(post.caption).map {
            ["type": "Hashtag", "name": "#\($0)", "href": "\(options.base)/t/\($0)"]
        }
        tags += mentionTags(of: post.caption, elsewhere: elsewhere)
        var note: JSONObject = [
            "id": postURI(post.id), "type": "Note", "attributedTo": actor,
            "content": html(post.caption, elsewhere: elsewhere),
            "published": ActivityStreams.isoDate(post.createdAt), "url": postURI(post.id),
            "to": [ActivityStreams.publicAudience], "cc": ["\(actor)/followers"] + elsewhere.map(\.uri),
            "sensitive": false, "tag": tags,
            "attachment": post.photos.map { photo -> JSONObject in
                var image: JSONObject = [
                    "type": "Image", "mediaType": photo.full.type ?? ActivityStreams.mediaType(of: photo.full.url),
                    "url": options.base + photo.full.url, "width": photo.width, "height": photo.height,
                ]
                if let alt = photo.altText, !alt.isEmpty { image["name"] = alt }
                return image
            },
        ]
        if let edited = post.editedAt { note["updated"] = ActivityStreams.isoDate(edited) }
        return note
    }

    /// A `Create` of `note`, by its author, to the same audience.
    func create(_ note: JSONObject) -> JSONObject {
        [
            "id": "\(note["id"] as? String ?? "")/activity", "type": "Create",
            "actor": note["attributedTo"] ?? "", "published": note["published"] ?? "",
            "to": note["to"] ?? [], "cc": note["cc"] ?? [], "object": note,
        ]
    }
}
