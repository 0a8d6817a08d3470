import Foundation
import MakestagramAPI
import MakestagramCore
import MakestagramStore

/// Why an inbox did not take an activity: the status to answer and a sentence saying why. Nothing of a refused
/// activity is kept.
public struct InboxRefusal: Error, Equatable, CustomStringConvertible {
    public var status: Int
    public var reason: String

    public var description: String { reason }

    static func unauthorized(_ reason: String) -> InboxRefusal { InboxRefusal(status: 401, reason: reason) }
    static func bad(_ reason: String) -> InboxRefusal { InboxRefusal(status: 400, reason: reason) }
    static func forbidden(_ reason: String) -> InboxRefusal { InboxRefusal(status: 403, reason: reason) }
    static func notFound(_ reason: String) -> InboxRefusal { InboxRefusal(status: 404, reason: reason) }
}

extension Federation {
    /// The deepest nesting of arrays and objects an activity may have.
    static var maxDepth: Int { 32 }

    /// Takes an activity POSTed to an inbox (a person's or the shared one): checks its signature, its digest and date,
    /// that the key is its actor's and that its ids are on its actor's server, then applies it through the use cases.
    /// Throws ``InboxRefusal`` for what is refused.
    public func receive(body: Data, request: HTTPSignature.Request) async throws {
        guard let header = request.headers["signature"] else {
            throw InboxRefusal.unauthorized("the request is not signed")
        }
        let signature: HTTPSignature
        do {
            signature = try HTTPSignature(header: header)
            try signature.checkCoverage(of: request, body: body)
        } catch .digestMismatch {
            throw InboxRefusal.bad(HTTPSignature.Failure.digestMismatch.description)
        } catch {
            throw InboxRefusal.unauthorized(error.description)
        }
        guard Self.depth(of: body) <= Self.maxDepth,
            let activity = try? JSONSerialization.jsonObject(with: body) as? JSONObject
        else { throw InboxRefusal.bad("the body is not a JSON object of reasonable depth") }
        guard let actorURI = Self.id(of: activity["actor"]), let actorOrigin = ActivityStreams.origin(of: actorURI)
        else {
            throw InboxRefusal.bad("the activity names no actor")
        }
        if isLocal(actorURI) { throw InboxRefusal.unauthorized("the actor is on this server") }
        // Nothing is taken from a suspended server, before anything is read or fetched on its behalf.
        if severity(of: actorURI) == .suspend || severity(of: signature.keyID) == .suspend {
            throw InboxRefusal.forbidden("the moderators here suspended the actor's server")
        }
        // A server tells every server it knows that one of its people is gone; of someone never met here there is
        // nothing to delete (and their document, gone, could not be fetched to check the signature).
        if activity["type"] as? String == "Delete", Self.id(of: activity["object"]) == actorURI,
            try await store.remoteActor(uri: actorURI) == nil
        {
            return
        }
        guard ActivityStreams.origin(of: signature.keyID) == actorOrigin else {
            throw InboxRefusal.unauthorized("the key is not on the actor's server")
        }
        let actor = try await verifiedActor(actorURI, signature: signature, request: request)
        await heard(fromActor: actorURI)
        // Counted per server once its signature is checked, so that nobody can spend another server's share.
        try core.protection.take(.inbox, client: actorOrigin)
        guard let id = activity["id"] as? String, ActivityStreams.origin(of: id) == actorOrigin else {
            throw InboxRefusal.bad("the activity's id is not on its actor's server")
        }
        try await apply(activity, id: id, actor: actor, origin: actorOrigin)
    }

    /// The remote actor `uri` whose key made `signature` over `request`: from the store, or fetched when unknown, or
    /// fetched again once when its key does not match (the key may have been rotated).
    func verifiedActor(_ uri: String, signature: HTTPSignature, request: HTTPSignature.Request) async throws
        -> RemoteActor
    {
        var fetched = false
        var (actor, epoch) = remoteActors.actor(uri: uri)
        if actor == nil {
            actor = try await store.remoteActor(uri: uri)
            if let actor { remoteActors.keep(actor, readAt: epoch) }
        }
        if actor == nil {
            actor = try await fetchActor(uri)
            fetched = true
        }
        while let known = actor {
            let verifies =
                known.keyID == signature.keyID
                && (try? signature.verifies(request, publicKeyPEM: known.publicKeyPEM)) == true
            if verifies { return known }
            guard !fetched else { break }
            actor = try await fetchActor(uri)
            fetched = true
        }
        throw InboxRefusal.unauthorized("the signature is not the actor's")
    }

    /// Fetches and keeps the actor document at `uri`.
    func fetchActor(_ uri: String) async throws -> RemoteActor {
        guard let url = URL(string: uri) else { throw InboxRefusal.bad("the actor id is not a URL") }
        let document: JSONObject
        do {
            document = try await peers.fetchDocument(url, signer: signer(for: nil))
        } catch {
            throw InboxRefusal.unauthorized("the actor \(uri) cannot be fetched: \(error)")
        }
        guard var parsed = parseActor(document, fetchedFrom: uri) else {
            throw InboxRefusal.unauthorized("the document at \(uri) is not a usable actor")
        }
        // The people of a limited server are seen as a private account's are: by those who follow them.
        if severity(of: uri) == .limit { parsed.isPrivate = true }
        let before = try await store.remoteActor(uri: uri)
        var saved = try await store.saveRemoteActor(parsed)
        if let before, !parsed.isPrivate {
            // Public now (they unlocked their account, or their server's limit was lifted): what was kept for their
            // followers only goes, and then they are public here too (the store keeps them private until it has).
            for _ in 0..<3 {
                let kept = try await store.followersOnlyRemotePosts(of: before.userID)
                if kept.isEmpty { break }
                for post in kept { try await core.posting.delete(postID: post, by: before.userID) }
                saved = try await store.saveRemoteActor(parsed)
            }
        }
        remoteActors.forget(uri: uri)
        // Someone the moderators suspended stays so, whatever their server says.
        guard let actor = try await store.remoteActor(uri: saved.uri) else {
            throw InboxRefusal.forbidden("the actor \(uri) is suspended here")
        }
        if before == nil { try await core.relationships.applyDomainBlocks(to: actor.username) }
        if parsed.iconURL != before?.iconURL { await keepAvatar(of: actor) }
        return actor
    }

    /// Fetches a remote person's avatar through the photo pipeline as an uploaded one is, so that it is served from
    /// here; none when their document names none. A failure leaves the initials, and is tried again when their
    /// document names another.
    func keepAvatar(of actor: RemoteActor) async {
        do {
            if let icon = actor.iconURL, let url = URL(string: icon) {
                let bytes = try await peers.fetchMedia(url, maxBytes: core.maxUploadBytes)
                _ = try await core.profiles.edit(actor.userID) { ProfileChanges(avatar: .photo(bytes)) }
            } else {
                _ = try await core.profiles.edit(actor.userID) { ProfileChanges(avatar: .initials) }
            }
        } catch {
            logger.info("a remote avatar was not kept", metadata: ["actor": "\(actor.uri)", "error": "\(error)"])
        }
    }

    /// What an actor document says, when it is one this server can use: its id is where it was fetched from, its key
    /// is its own, and its inboxes are on its server.
    func parseActor(_ document: JSONObject, fetchedFrom uri: String) -> RemoteActorDocument? {
        guard let id = document["id"] as? String, id == uri, let url = URL(string: id),
            let origin = ActivityStreams.origin(of: url), let host = url.host(percentEncoded: false)?.lowercased(),
            let type = document["type"] as? String,
            ["Person", "Service", "Application", "Group", "Organization"].contains(type),
            let name = document["preferredUsername"] as? String,
            let inbox = document["inbox"] as? String, ActivityStreams.origin(of: inbox) == origin,
            let key = document["publicKey"] as? JSONObject, let keyID = key["id"] as? String,
            ActivityStreams.origin(of: keyID) == origin, (key["owner"] as? String) == id,
            let pem = key["publicKeyPem"] as? String
        else { return nil }
        let username = name.lowercased()
        guard username.range(of: #"^[a-z0-9_.\-]{1,64}$"#, options: .regularExpression) != nil else { return nil }
        let domain = ActivityStreams.domain(of: url) ?? host
        let shared = (document["endpoints"] as? JSONObject)?["sharedInbox"] as? String
        var displayName = ActivityStreams.plainText(document["name"] as? String ?? "")
            .replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespaces)
        if displayName.isEmpty { displayName = name }
        return RemoteActorDocument(
            uri: id, username: "\(username)@\(domain)",
            displayName: Self.clipped(displayName, to: Limits.displayNameLength.upperBound),
            bio: Self.clipped(
                ActivityStreams.plainText(document["summary"] as? String ?? ""), to: Limits.bioLength.upperBound),
            inbox: inbox, sharedInbox: shared.flatMap { ActivityStreams.origin(of: $0) == origin ? $0 : nil },
            keyID: keyID, publicKeyPEM: pem, profileURL: Self.mediaURL(document["url"]),
            isPrivate: document["manuallyApprovesFollowers"] as? Bool ?? false,
            iconURL: Self.mediaURL((document["icon"] as? JSONObject)?["url"] ?? document["icon"]))
    }

    /// Applies an activity whose signature and origin were checked.
    func apply(_ activity: JSONObject, id: String, actor: RemoteActor, origin: String) async throws {
        switch activity["type"] as? String {
        case "Follow":
            guard let target = Self.id(of: activity["object"]), let username = localUsername(ofActor: target) else {
                throw InboxRefusal.notFound("the followed actor is not on this server")
            }
            guard let followed = try await store.profile(username: username, viewer: actor.userID) else {
                throw InboxRefusal.notFound("the followed actor is not on this server")
            }
            // Remembered first: the Accept, sent once the follow is committed, names this Follow.
            _ = try await store.rememberInbound(
                InboundActivity(id: id, actor: actor.userID, kind: .follow, object: followed.id))
            do {
                _ = try await core.relationships.follow(username, by: actor.userID, following: true)
            } catch {
                try await store.forgetInbound(id: id)
                throw error
            }
        case "Like":
            // A like of a comment (a reply from here, as Mastodon lets its people favourite) is taken and not kept:
            // comments here have no likes.
            if let object = Self.id(of: activity["object"]), let comment = localCommentID(object),
                try await store.postOfComment(comment) != nil
            {
                return
            }
            guard let object = Self.id(of: activity["object"]), let postID = localPostID(object) else {
                throw InboxRefusal.notFound("the liked post is not on this server")
            }
            // The like and the note of its id are written together (one commit, when the store groups writes); the
            // note goes again if the like is refused.
            async let remembered = store.rememberInbound(
                InboundActivity(id: id, actor: actor.userID, kind: .like, object: postID))
            do {
                _ = try await core.interactions.like(postID: postID, by: actor.userID, liked: true)
            } catch {
                if (try? await remembered) == true { try? await store.forgetInbound(id: id) }
                throw error
            }
            _ = try await remembered
        case "Accept", "Reject":
            // The answer to a follow someone here sent: `object` is that Follow, or its id.
            guard let followID = Self.id(of: activity["object"]), isLocal(followID),
                let hash = followID.firstIndex(of: "#"), let local = localUsername(ofActor: String(followID[..<hash])),
                let person = try await store.profile(username: local, viewer: 0)
            else { throw InboxRefusal.notFound("the answered Follow was not sent from this server") }
            let accepted = activity["type"] as? String == "Accept"
            do {
                try await core.relationships.answerRequest(from: person.username, to: actor.userID, approve: accepted)
            } catch StoreError.notFound {
                // Answered before; or, for a Reject, a follow their server ends now.
                if !accepted {
                    _ = try await core.relationships.follow(actor.username, by: person.id, following: false)
                }
            }
        case "Create":
            guard let note = activity["object"] as? JSONObject else { return }
            try await create(note, actor: actor, origin: origin)
        case "Undo":
            try await undo(activity["object"], actor: actor, origin: origin)
        case "Delete":
            guard let object = Self.id(of: activity["object"]) else { throw InboxRefusal.bad("Delete names nothing") }
            guard ActivityStreams.origin(of: object) == origin else {
                throw InboxRefusal.forbidden("Delete of something not on the actor's server")
            }
            if object == actor.uri {
                // Their account is gone: so is everything of theirs here.
                try await core.accounts.deleteRemoteAccount(user: actor.userID)
                remoteActors.forget(user: actor.userID)
                return
            }
            if let post = try await store.remotePost(uri: object) {
                guard try await store.post(id: post, viewer: actor.userID)?.author.id == actor.userID else {
                    throw InboxRefusal.forbidden("Delete of another actor's post")
                }
                try await core.posting.delete(postID: post, by: actor.userID)
                return
            }
            guard let known = try await store.inbound(id: object), known.actor == actor.userID else { return }
            if known.kind == .comment {
                try? await core.interactions.deleteComment(known.object, by: actor.userID)
                try await store.forgetInbound(id: object)
            }
        case "Update":
            guard let object = activity["object"] as? JSONObject, let objectID = Self.id(of: object) else { return }
            if objectID == actor.uri {
                _ = try await fetchActor(actor.uri)
            } else if ActivityStreams.origin(of: objectID) == origin,
                let post = try await store.remotePost(uri: objectID)
            {
                let caption = Self.clipped(
                    text(ofContent: object["content"] as? String ?? ""), to: Limits.captionLength.upperBound)
                let edited = try await core.posting.edit(
                    postID: post, by: actor.userID, caption: caption, hideLikeCount: nil)
                try await updateAltTexts(of: edited, from: object, actor: actor)
            }
        case "Flag":
            try await flag(activity, actor: actor)
        case "Block":
            // Someone elsewhere blocks someone here: a block as one made here (the follows between them end, and
            // neither sees nor reaches the other); the one blocked is not told, as here.
            guard let target = Self.id(of: activity["object"]), let username = localUsername(ofActor: target),
                try await store.profile(username: username, viewer: 0) != nil
            else { throw InboxRefusal.notFound("the blocked actor is not on this server") }
            _ = try await core.relationships.block(username, by: actor.userID, blocking: true)
        default:
            return  // Accepted and not acted on: Announce, Add and others this server does not take yet.
        }
    }

    /// A report from another server: each post here it names goes to the moderators' queue, reported by the actor who
    /// sent it (their handle names their server) with its `content` as the reason. A report that names only
    /// accounts is taken and not kept: reports here are of posts.
    func flag(_ activity: JSONObject, actor: RemoteActor) async throws {
        let posts = Self.ids(activity["object"]).compactMap(localPostID)
        let said = Self.clipped(
            text(ofContent: activity["content"] as? String ?? ""), to: Limits.reportReasonLength.upperBound - 40)
        let host = actor.username.split(separator: "@").last.map(String.init) ?? actor.uri
        let reason = said.isEmpty ? "Reported from \(host)." : "\(said) (reported from \(host))"
        for postID in Set(posts).sorted().prefix(20) {
            do {
                try await core.interactions.report(postID: postID, by: actor.userID, reason: reason)
            } catch StoreError.alreadyReported, StoreError.cannotReportOwnPost {
                continue
            }
        }
    }

    /// A reply to a post here (one from here, or one from elsewhere kept here) becomes a comment by its author, when
    /// everyone who sees the post may read it: a public reply, or one to a private account's post (seen only by its
    /// followers) addressed to the replier's followers or the account's. A reply for the replier's followers to a
    /// public post, or to the people it names only, is accepted and not kept: as a comment here everyone who sees the
    /// post would read it.
    func create(_ note: JSONObject, actor: RemoteActor, origin: String) async throws {
        guard (note["type"] as? String) == "Note", let noteID = note["id"] as? String,
            ActivityStreams.origin(of: noteID) == origin
        else { throw InboxRefusal.bad("the created object is not a Note on the actor's server") }
        guard Self.id(of: note["attributedTo"]) == actor.uri else {
            throw InboxRefusal.forbidden("the Note is not the actor's")
        }
        guard let reply = Self.id(of: note["inReplyTo"]), let postID = try await repliedPost(reply) else {
            try await keepPost(note, id: noteID, actor: actor)
            return
        }
        if try await store.inbound(id: noteID) != nil { return }
        let audience = Self.audience(of: note)
        if !Self.isPublic(audience) {
            guard let author = try await store.postAuthors([postID])[postID],
                let profile = try await store.profile(id: author, viewer: author), profile.isPrivate
            else { return }
            let authorURI = try await store.remoteActor(user: author)?.uri ?? actorURI(profile.username)
            guard audience.contains(actor.uri + "/followers") || audience.contains(authorURI + "/followers") else {
                return
            }
        }
        let text = text(ofContent: note["content"] as? String ?? "")
        _ = try await core.interactions.comment(on: postID, by: actor.userID, text: text, note: noteID)
    }

    /// Keeps a post of someone people here follow: each photo fetched from their server once and taken through the
    /// photo pipeline as an upload is, so that readers here never contact that server. A public post is kept; one for
    /// the author's followers only is kept while the author is private here (a locked account, or one of a limited
    /// server), where only their followers see any of their posts. Notes without a photo, addressed otherwise (to
    /// named people only, or to the followers of someone who is public here, which this server cannot show to some
    /// and not others), or of someone nobody here follows are accepted and not kept.
    func keepPost(_ note: JSONObject, id: String, actor: RemoteActor) async throws {
        let audience = Self.audience(of: note)
        let isPublic = Self.isPublic(audience)
        // Their followers collection, named as every server that speaks ActivityPub here names it.
        guard isPublic || audience.contains(actor.uri + "/followers") else { return }
        guard let author = try await store.profile(id: actor.userID, viewer: actor.userID), author.followerCount > 0
        else { return }
        let followersOnly = !isPublic
        if followersOnly && !author.isPrivate { return }
        if try await store.remotePost(uri: id) != nil { return }
        let images = photos(of: note)
        guard !images.isEmpty else { return }
        let caption = Self.clipped(
            text(ofContent: note["content"] as? String ?? ""), to: Limits.captionLength.upperBound)
        // Its page there, shown as a link: only a web address.
        let page = Self.mediaURL(note["url"]).flatMap {
            ["http", "https"].contains(URL(string: $0)?.scheme) ? $0 : nil
        }
        // The same Note delivered again while it is being kept (a sender that retries, or one delivery to each inbox)
        // waits for that delivery instead of fetching its photos again.
        try await notesBeingKept.run(NoteKey(actor: actor.userID, id: id)) {
            try await self.keepNew(
                id: id, images: images, caption: caption, page: page, followersOnly: followersOnly, actor: actor)
        }
    }

    /// The photos of a Note this server keeps, in its order: its images (at most as many as a post here holds) with
    /// their alt text.
    func photos(of note: JSONObject) -> [RemotePhoto] {
        (note["attachment"] as? [JSONObject] ?? []).filter { attachment in
            let type = attachment["type"] as? String
            let media = attachment["mediaType"] as? String ?? ""
            return type == "Image" || (type == "Document" && media.hasPrefix("image/"))
        }.prefix(core.maxPhotosPerPost).compactMap { image -> RemotePhoto? in
            guard let link = Self.mediaURL(image["url"]), let url = URL(string: link) else { return nil }
            let alt = (image["name"] as? String).map { Self.clipped($0, to: Limits.altTextLength.upperBound) }
            return RemotePhoto(link: link, url: url, alt: alt)
        }
    }

    /// Follows the alt texts of an `Update` of a kept post's Note, photo by photo in order, when it names as many
    /// photos as were kept (photos added or taken away there are not followed: which is which is not known). Each
    /// change goes through the same use case as an edit here; one the rules refuse (a control character) leaves that
    /// photo's alt text as it was and the others are still followed.
    func updateAltTexts(of post: Post, from note: JSONObject, actor: RemoteActor) async throws {
        let images = photos(of: note)
        guard images.count == post.photos.count else { return }
        for (index, (image, photo)) in zip(images, post.photos).enumerated() {
            let alt = image.alt?.isEmpty == false ? image.alt : nil
            guard alt != photo.altText else { continue }
            do {
                _ = try await core.posting.edit(
                    postID: post.id, by: actor.userID, caption: nil, hideLikeCount: nil, altText: alt ?? "",
                    photo: index)
            } catch UseCaseError.invalidField {
                continue
            }
        }
    }

    /// The post here that a reply's `inReplyTo` names: one from here or one from elsewhere kept here, or the post of
    /// the comment it answers (a comment made here, or a reply from elsewhere kept as one), so that a conversation
    /// stays under its post.
    func repliedPost(_ uri: String) async throws -> Int64? {
        if let local = localPostID(uri) { return local }
        if isLocal(uri) {
            guard let comment = localCommentID(uri) else { return nil }
            return try await store.postOfComment(comment)
        }
        if let kept = try await store.remotePost(uri: uri) { return kept }
        guard let known = try await store.inbound(id: uri), known.kind == .comment else { return nil }
        return try await store.postOfComment(known.object)
    }

    /// Whom an object is addressed to: its `to` and `cc`.
    static func audience(of object: JSONObject) -> [String] {
        ids(object["to"]) + ids(object["cc"])
    }

    /// Whether `audience` includes everyone (the public collection, in any of the forms servers write it).
    static func isPublic(_ audience: [String]) -> Bool {
        audience.contains { [ActivityStreams.publicAudience, "as:Public", "Public"].contains($0) }
    }

    /// A Note as its sender names it: the sender's user ID here and the Note's id.
    struct NoteKey: Hashable, Sendable {
        let actor: Int64
        let id: String
    }

    /// A photo of a Note: where it is, and its alt text.
    struct RemotePhoto: Sendable {
        let link: String
        let url: URL
        let alt: String?
    }

    /// Keeps the post of Note `id` unless it is kept already (by a delivery that ended while this one was on its way
    /// here): its photos fetched and taken through the pipeline, then the post made with its origin in one write.
    private func keepNew(
        id: String, images: [RemotePhoto], caption: String, page: String?, followersOnly: Bool, actor: RemoteActor
    ) async throws {
        if try await store.remotePost(uri: id) != nil { return }
        var uploads: [Int64] = []
        var kept: [(source: String, files: [String])] = []
        do {
            for image in images {
                let bytes: Data
                do {
                    bytes = try await peers.fetchMedia(image.url, maxBytes: core.maxUploadBytes)
                } catch let failure as PeerClient.Failure {
                    throw Self.refusal(fetching: image.link, failure)
                }
                let upload = try await core.posting.upload(by: actor.userID) {
                    NewPhoto(photo: bytes, caption: nil, altText: image.alt)
                }
                uploads.append(upload.id)
                kept.append(
                    (
                        image.link,
                        [upload.photo.full.fileName, upload.photo.thumb.fileName]
                            + upload.photo.variants.map(\.fileName)
                    ))
            }
            let origin = RemotePostOrigin(uri: id, url: page, photos: kept, followersOnly: followersOnly)
            let made: Post?
            do {
                made = try await core.posting.create(
                    by: actor.userID, fromUploads: uploads, caption: caption, origin: origin)
            } catch StoreError.forbidden where followersOnly {
                // The author turned public while its photos were on their way: not kept.
                made = nil
            }
            guard made != nil else {
                // Another delivery of the same Note kept it meanwhile (on another instance of a shared database).
                for upload in uploads { try? await core.posting.deleteUpload(id: upload, by: actor.userID) }
                return
            }
            remoteMedia.kept()
        } catch {
            for upload in uploads { try? await core.posting.deleteUpload(id: upload, by: actor.userID) }
            throw error
        }
    }

    /// Why a Note's photo could not be fetched, as the inbox answers it: what will never change (too large, refused,
    /// not found) is a 422, so that the sender does not send it again; what may (a time-out, a 5xx or 429 of the
    /// photo's server) a 502, so that it does.
    static func refusal(fetching link: String, _ failure: PeerClient.Failure) -> InboxRefusal {
        let reason = "the photo at \(link) cannot be fetched: \(failure)"
        switch failure {
        case .timedOut: return InboxRefusal(status: 502, reason: reason)
        case .status(let code) where code >= 500 || code == 429: return InboxRefusal(status: 502, reason: reason)
        default: return InboxRefusal(status: 422, reason: reason)
        }
    }

    /// A Note's HTML as the text people here read: tags dropped, and each mention as a handle (`@alice` for someone
    /// on this server, `@bob@host` for someone elsewhere), so that a mention of someone elsewhere never notifies a
    /// namesake here.
    func text(ofContent html: String) -> String {
        let linked = html.replacing(
            /<a\s[^>]*href="([^"]*)"[^>]*>\s*@(?:<span[^>]*>)?([A-Za-z0-9_.\-]+)(?:@[^<]*)?(?:<\/span>)?\s*<\/a>/
                .ignoresCase()
        ) { match in
            let href = String(match.output.1)
            let name = match.output.2.lowercased()
            if isLocal(href) { return "@" + (localUsername(ofActor: href) ?? name) }
            guard let domain = URL(string: href).flatMap(ActivityStreams.domain(of:)) else { return "@\(name)" }
            return "@\(name)@\(domain)"
        }
        // A handle on this server's own domain names someone here.
        let domain = options.domain
        return ActivityStreams.plainText(linked).replacing(/@([a-z0-9_.]{3,30})@([A-Za-z0-9.\-]+(?::[0-9]+)?)/) {
            match in
            match.output.2.lowercased() == domain ? "@\(match.output.1)" : String(match.output.0)
        }
    }

    /// The ids a field lists: one, or an array.
    static func ids(_ value: Any?) -> [String] {
        if let list = value as? [Any] { return list.compactMap { id(of: $0) } }
        return id(of: value).map { [$0] } ?? []
    }

    /// A link's address: the string, a `Link`'s `href`, or the first of a list.
    static func mediaURL(_ value: Any?) -> String? {
        if let text = value as? String { return text }
        if let link = value as? JSONObject { return link["href"] as? String }
        if let list = value as? [Any] { return list.lazy.compactMap { mediaURL($0) }.first }
        return nil
    }

    /// Takes back a follow or like, given embedded or by id, or a block, given embedded.
    func undo(_ object: Any?, actor: RemoteActor, origin: String) async throws {
        guard let objectID = Self.id(of: object) else { throw InboxRefusal.bad("Undo names nothing") }
        guard ActivityStreams.origin(of: objectID) == origin else {
            throw InboxRefusal.forbidden("Undo of something not on the actor's server")
        }
        if let embedded = object as? JSONObject, let by = Self.id(of: embedded["actor"]), by != actor.uri {
            throw InboxRefusal.forbidden("Undo of another actor's activity")
        }
        let embedded = object as? JSONObject
        // An embedded Like says what it liked: no need to look its id up.
        let embeddedLike =
            (embedded?["type"] as? String) == "Like" ? Self.id(of: embedded?["object"]).flatMap(localPostID) : nil
        if let postID = embeddedLike {
            async let forgotten: Void = store.forgetInbound(id: objectID)
            _ = try await core.interactions.like(postID: postID, by: actor.userID, liked: false)
            try await forgotten
            return
        }
        let known = try await store.inbound(id: objectID)
        if let known, known.actor != actor.userID { throw InboxRefusal.forbidden("Undo of another actor's activity") }
        switch (known?.kind, embedded?["type"] as? String) {
        case (.follow, _), (nil, "Follow"):
            let target: UserProfile?
            if let known {
                target = try await store.profile(id: known.object, viewer: 0)
            } else if let name = Self.id(of: embedded?["object"]).flatMap(localUsername(ofActor:)) {
                target = try await store.profile(username: name, viewer: 0)
            } else {
                target = nil
            }
            guard let target else { return }
            // Forgotten first: a follow that ends with its Follow remembered was ended here, and is answered with a
            // Reject (``OutboundRules``); this one they ended themselves.
            try await store.forgetInbound(id: objectID)
            if let other = try await store.inboundFollow(actor: actor.userID, target: target.id) {
                try await store.forgetInbound(id: other)
            }
            _ = try await core.relationships.follow(target.username, by: actor.userID, following: false)
        case (.like, _), (nil, "Like"):
            let postID = known?.object ?? Self.id(of: embedded?["object"]).flatMap(localPostID)
            guard let postID else { return }
            _ = try await core.interactions.like(postID: postID, by: actor.userID, liked: false)
        case (nil, "Block"):
            // Undone blocks name what they blocked (an Undo of a Block by id alone names nothing known here).
            guard let username = Self.id(of: embedded?["object"]).flatMap(localUsername(ofActor:)) else { return }
            _ = try await core.relationships.block(username, by: actor.userID, blocking: false)
        default:
            return
        }
        try await store.forgetInbound(id: objectID)
    }

    /// `text` cut to at most `limit` Unicode scalars (what the store's length rules count).
    static func clipped(_ text: String, to limit: Int) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.prefix(limit))
        return String(scalars)
    }

    /// The id an activity's field names: the string, or the `id` of the object given.
    static func id(of value: Any?) -> String? {
        if let text = value as? String { return text }
        return (value as? JSONObject)?["id"] as? String
    }

    /// How deeply arrays and objects nest in `json`, counted on the bytes (strings skipped).
    static func depth(of json: Data) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in json {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}
