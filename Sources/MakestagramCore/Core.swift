// MakestagramCore: what people do, written once for every door (the native API, the Mastodon API, other servers
// through ActivityPub, the CLI through the SDK). One type per domain — Accounts, Apps, Posting, Interactions,
// Relationships, Profiles, Moderation — each use case checking its input (Text), taking its rate limit once
// (Limits), writing through the Store and cleaning up its files on failure (Media). Doors translate formats and
// call these; they write nothing and touch no file themselves. Background work that finishes what a use case began
// (deleting accounts, sweeping media, making variants) lives here too.

import Foundation
import MakestagramAPI
import MakestagramStore

/// Every use case over one store, with what they share: the photo pipeline and media files, the limits, and the
/// background work they hand over to.
package struct Core<S: Store>: Sendable {
    package let store: S
    package let protection: Protection
    package let worker: PhotoWorker
    /// The bcrypt work factor for new passwords (at least 10).
    package let bcryptCost: UInt8
    /// Finishes deleting accounts in the background.
    package let deletion: any AccountDeletionTrigger
    /// The largest photo accepted, in bytes.
    package let maxUploadBytes: Int
    /// The most photos a post may hold.
    package let maxPhotosPerPost: Int
    /// People on other servers, when federation is on.
    package let remote = RemotePeople()

    package init(
        store: S, protection: Protection, worker: PhotoWorker, bcryptCost: UInt8,
        deletion: any AccountDeletionTrigger, maxUploadBytes: Int, maxPhotosPerPost: Int = Post.photoLimit
    ) {
        self.maxPhotosPerPost = min(max(1, maxPhotosPerPost), Post.photoLimitCeiling)
        self.store = store
        self.protection = protection
        self.worker = worker
        self.bcryptCost = max(10, bcryptCost)
        self.deletion = deletion
        self.maxUploadBytes = maxUploadBytes
    }

    /// Looks up the people elsewhere that a text by `user` mentions, so that it reaches them; only for people from
    /// here (a text from elsewhere names whom its own server knows, and is not cause to contact others).
    package func meetMentioned(in text: String, by user: Int64) async {
        guard !Mentions.remote(of: text).isEmpty, (try? await store.remoteActor(user: user)) == nil else { return }
        await remote.meet(mentionedIn: text)
    }

    /// Where photo files live.
    package var media: any MediaStorage { worker.media }

    package var accounts: Accounts<S> { Accounts(core: self) }
    package var apps: Apps<S> { Apps(core: self) }
    package var posting: Posting<S> { Posting(core: self) }
    package var interactions: Interactions<S> { Interactions(core: self) }
    package var relationships: Relationships<S> { Relationships(core: self) }
    package var profiles: Profiles<S> { Profiles(core: self) }
    package var moderation: Moderation<S> { Moderation(core: self) }
}

/// No account is being deleted in the background (tools and tests that finish deletions themselves).
package struct NoAccountDeletion: AccountDeletionTrigger {
    package init() {}
    package func wake() {}
}
