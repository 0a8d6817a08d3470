// MakestagramKit: the client SDK for apps on Apple platforms and Linux — the HTTP client with typed problems and
// retries, sessions kept in the Keychain or a 0600 file, one observable model per post on Incremental, feeds with
// refresh and paging, live events merged by version, and an offline cache.

import Foundation
import Incremental
import MakestagramAPI

/// The SDK for one Makestagram server: the session (sign up, log in, log out, remembered between launches), the
/// API client, the observable post models and feeds, live updates and the offline cache. Lives on the main actor,
/// like the views it feeds.
///
/// ```swift
/// let app = Makestagram(server: URL(string: "https://photos.example.com")!)
/// try await app.logIn(username: "alice", password: "…")
/// try await app.homeFeed.refresh()
/// app.live.start()
/// ```
@MainActor
public final class Makestagram {
    /// The API client; every endpoint is a method.
    public let client: APIClient
    /// One model per post ID.
    public let posts: PostStore
    /// The viewer's activity and its unread count, kept current by ``live``.
    public let activity: ActivityStore
    /// Live updates for every post on screen.
    public private(set) var live: LiveUpdates!  // made right after the other properties, as it refers to self
    /// The logged-in user, or nil.
    public var user: I<UserSummary?> { userInput.i }
    /// How many posts a feed loads at a time (feeds made from now on).
    public var pageSize = Limits.defaultPageSize

    private let userInput: Input<UserSummary?>
    private let credentials: any CredentialStore
    private let cacheDirectory: URL?
    private let liveTransport: any LiveTransport
    private var feeds: [FeedStore.Source: FeedStore] = [:]

    /// The SDK for `server`.
    ///
    /// - Parameters:
    ///   - credentials: where the session is remembered (the Keychain on Apple platforms, a 0600 file on Linux).
    ///   - cacheDirectory: where feeds, images and offline likes are kept, in a folder per server and user; nil
    ///     keeps nothing (likes made offline then fail instead of waiting).
    ///   - transport: how HTTP requests travel (URLSession).
    ///   - liveTransport: how the event stream's WebSocket travels.
    public init(
        server: URL, credentials: any CredentialStore = platformCredentialStore(),
        cacheDirectory: URL? = OfflineCache.defaultDirectory, transport: any HTTPTransport = URLSessionTransport(),
        liveTransport: any LiveTransport = platformLiveTransport()
    ) {
        let remembered = try? credentials.load(server: server)
        self.client = APIClient(server: server, token: remembered?.token, transport: transport)
        self.credentials = credentials
        self.cacheDirectory = cacheDirectory
        self.liveTransport = liveTransport
        self.userInput = Input(remembered?.user)
        self.posts = PostStore(
            client: client,
            cache: remembered.flatMap { OfflineCache(in: cacheDirectory, server: server, username: $0.user.username) })
        self.posts.viewer = remembered?.user
        self.activity = ActivityStore(client: client)
        self.live = makeLive()
    }

    private func makeLive() -> LiveUpdates {
        let live = LiveUpdates(client: client, store: posts, transport: liveTransport) { [weak self] in
            self?.feeds[.home]
        }
        live.sessionEnded = { [weak self] in self?.sessionEnded() }
        live.activity = activity
        return live
    }

    /// Whether a session is open (remembered from an earlier launch, or begun in this one).
    public var isLoggedIn: Bool { client.token != nil }

    // MARK: Feeds and images

    /// The home timeline, shown from the offline cache at once if there is one; call `refresh()` for the server's.
    public var homeFeed: FeedStore { feed(.home) }

    /// One user's posts.
    public func feed(of username: String) -> FeedStore { feed(.user(username)) }

    private func feed(_ source: FeedStore.Source) -> FeedStore {
        if let feed = feeds[source] { return feed }
        let feed = FeedStore(source: source, store: posts, pageSize: pageSize)
        feeds[source] = feed
        return feed
    }

    /// Loads photos, from the offline cache when they were seen before.
    public var images: ImageLoader { ImageLoader(client: client, cache: posts.cache) }

    /// Shares a photo, cut by the server as `crop` says; `progress` gets the fraction sent. The post goes to the
    /// top of the home feed.
    @discardableResult
    public func share(
        image: Data, fileName: String = "photo.jpg", caption: String = "", crop: PhotoCrop = .original,
        altText: String? = nil, progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> PostModel {
        let post = try await client.createPost(
            image: image, fileName: fileName, caption: caption, crop: crop, altText: altText, progress: progress)
        feeds[.home]?.insert(post)
        feeds[.user(post.author.username)]?.insert(post)
        return posts.model(for: post)
    }

    /// Shares several photos as one post (an album), in the order given, each cut as `crop` says and with its own
    /// alt text. Each photo is uploaded on its own: `progress` gets the photo's index and the fraction of it sent.
    /// Nothing is posted unless every photo arrived; the photos already uploaded are then forgotten. The post goes
    /// to the top of the home feed.
    @discardableResult
    public func share(
        photos: [PhotoToShare], caption: String = "", crop: PhotoCrop = .original,
        progress: (@Sendable (_ photo: Int, _ fraction: Double) -> Void)? = nil
    ) async throws -> PostModel {
        var uploads: [Int64] = []
        do {
            for (index, photo) in photos.enumerated() {
                var perPhoto: (@Sendable (Double) -> Void)?
                if let progress { perPhoto = { fraction in progress(index, fraction) } }
                let uploaded = try await client.upload(
                    image: photo.data, fileName: photo.fileName, crop: crop, altText: photo.altText,
                    progress: perPhoto)
                uploads.append(uploaded.id)
            }
            let post = try await client.createPost(uploads: uploads, caption: caption)
            feeds[.home]?.insert(post)
            feeds[.user(post.author.username)]?.insert(post)
            return posts.model(for: post)
        } catch {
            for id in uploads { try? await client.deleteUpload(id) }
            throw error
        }
    }

    /// Mutes someone: their posts leave the home feed at once (the server's too) and their activity the activity
    /// list; they are not told.
    @discardableResult
    public func mute(_ username: String) async throws -> MuteState {
        let state = try await client.mute(username)
        feeds[.home]?.removePosts(by: username)
        return state
    }

    /// Unmutes someone: the home feed is read again, with their posts.
    @discardableResult
    public func unmute(_ username: String) async throws -> MuteState {
        let state = try await client.unmute(username)
        try await feeds[.home]?.reload()
        return state
    }

    /// Blocks someone: their posts leave the home feed at once, and the feed is read again without their likes
    /// and comments (the server has removed those on the viewer's posts, and hides the others).
    @discardableResult
    public func block(_ username: String) async throws -> BlockState {
        let state = try await client.block(username)
        feeds[.home]?.removePosts(by: username)
        try await feeds[.home]?.reload()
        return state
    }

    /// Unblocks someone; nothing the block ended comes back by itself.
    @discardableResult
    public func unblock(_ username: String) async throws -> BlockState {
        try await client.unblock(username)
    }

    // MARK: Session

    /// Creates an account and logs in to it.
    @discardableResult
    public func signUp(username: String, password: String, displayName: String) async throws -> UserProfile {
        let answer = try await client.signUp(username: username, password: password, displayName: displayName)
        try begin(answer)
        return answer.user
    }

    /// Logs in; the session is remembered until ``logOut()``.
    @discardableResult
    public func logIn(username: String, password: String) async throws -> UserProfile {
        let answer = try await client.logIn(username: username, password: password)
        try begin(answer)
        return answer.user
    }

    /// Ends the session on the server and forgets it here, with the user's offline cache.
    public func logOut() async throws {
        defer { sessionEnded() }
        guard isLoggedIn else { return }
        do {
            try await client.logOut()
        } catch let error as MakestagramError where error.status == 401 || error.isOffline {
            // Already over on the server, or unreachable: forgetting it here is what matters.
        }
    }

    /// Deletes the account (its password is needed) and forgets the session here.
    public func deleteAccount(password: String) async throws {
        try await client.deleteAccount(password: password)
        sessionEnded()
    }

    private func begin(_ answer: AuthResponse) throws {
        live.stop()
        client.token = answer.token
        let user = answer.user.summary
        try credentials.save(Credentials(server: client.server, token: answer.token, user: user))
        startFresh(
            cache: OfflineCache(in: cacheDirectory, server: client.server, username: user.username), viewer: user)
        userInput.write(user)
    }

    private func sessionEnded() {
        live.stop()
        client.token = nil
        try? credentials.delete(server: client.server)
        posts.cache?.clear()
        startFresh(cache: nil, viewer: nil)
        userInput.write(nil)
    }

    /// New models and feeds for another user: nothing of the previous session's shows.
    private func startFresh(cache: OfflineCache?, viewer: UserSummary?) {
        posts.reset(cache: cache, viewer: viewer)
        activity.reset()
        feeds = [:]
    }
}

/// One photo of a post to share: its bytes (JPEG, PNG, WebP or HEIC), a file name and what it shows for those who
/// cannot see it (at most ``Limits/altTextLength``).
public struct PhotoToShare: Sendable {
    public var data: Data
    public var fileName: String
    public var altText: String?

    public init(data: Data, fileName: String = "photo.jpg", altText: String? = nil) {
        self.data = data
        self.fileName = fileName
        self.altText = altText
    }
}
