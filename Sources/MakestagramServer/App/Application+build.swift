// MakestagramServer: the HTTP doors — configuration, start-up and the operator's commands (App), connection guards
// (Connections), client addresses behind proxies (Protection), errors and middleware (HTTP), the native API's
// routes (Routes), the Mastodon client API (Mastodon), OAuth (OAuth), posts' JSON and its cache (Rendering),
// multipart uploads (Media), logs and metrics (Observability) and demo data (Demo) — each translating its format
// onto the use cases of MakestagramCore, over a Store, the live engine and the web client.

import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import MakestagramCore
import MakestagramFederation
import MakestagramLive
import MakestagramStore
import MakestagramStorePostgres
import MakestagramStoreSQLite
import Photos
import ServiceLifecycle

/// Why the server could not start.
public enum StartupError: Error, CustomStringConvertible {
    /// libvips could not be initialised (is libvips installed?).
    case imageLibraryUnavailable
    /// The PostgreSQL database (named without its password) cannot be reached or used.
    case databaseUnreachable(database: String, reason: String)

    public var description: String {
        switch self {
        case .imageLibraryUnavailable: "libvips failed to start; install libvips (Debian: apt-get install libvips-dev)"
        case .databaseUnreachable(let database, let reason):
            "cannot use the database \(database): \(reason)"
        }
    }
}

/// Opens (creating and migrating) the database — SQLite in the data folder, or the PostgreSQL database
/// `configuration.database` names — seeds demo data if asked, and returns the application ready to
/// run.
public func buildApplication(_ configuration: ServerConfiguration) async throws -> some ApplicationProtocol {
    let sinks = ChangeSinks()
    guard let database = configuration.database else {
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        let store = SQLiteStore(database: try AppDatabase(path: configuration.databasePath), events: sinks.sink)
        return try await buildApplication(configuration, store: store, sinks: sinks)
    }
    var logger = Logger(label: "makestagram.postgres")
    logger.logLevel = configuration.logLevel
    let store: PostgresStore
    do {
        store = try await PostgresStore.open(database, events: sinks.sink, logger: logger)
    } catch let error as StoreError {
        let reason =
            switch error {
            case .unavailable(let detail), .database(let detail): detail
            default: "\(error)"
            }
        throw StartupError.databaseUnreachable(database: database.displayName, reason: reason)
    }
    return try await buildApplication(configuration, store: store, sinks: sinks, services: [store])
}

/// The application over an open SQLite database (tests open theirs to reach it while the server runs).
func buildApplication(_ configuration: ServerConfiguration, database: AppDatabase) async throws
    -> some ApplicationProtocol
{
    let sinks = ChangeSinks()
    return try await buildApplication(
        configuration, store: SQLiteStore(database: database, events: sinks.sink), sinks: sinks)
}

/// Where a store's committed changes go (of every instance, for a shared database): the live hub's bus, and the
/// doorbell of the change log's consumers.
struct ChangeSinks {
    let bus = LocalEventBus()
    let bell = ChangeBell()
    /// Wakes federation's consumer of the change log (when federation is on).
    let federationBell = ChangeBell()
    /// Federation's remote actors in memory, forgotten as changes say.
    let remoteActors = RemoteActors()
    /// The keys local actors sign with, in memory, forgotten as changes say.
    let actorKeys = ActorKeys()

    var sink: FanOutSink { FanOutSink([bus, bell, federationBell, remoteActors, actorKeys]) }
}

/// The application over `store`, whose committed changes arrive on `sinks`; `services` run with the server (a
/// PostgreSQL store's change stream).
func buildApplication<S: Store>(
    _ configuration: ServerConfiguration, store: S, sinks: ChangeSinks, services: [any Service] = []
) async throws -> Application<RouterResponder<AppRequestContext>> {
    let bus = sinks.bus
    var logger = Logger(label: "makestagram")
    logger.logLevel = configuration.logLevel
    guard PhotoProcessor.prepare() else { throw StartupError.imageLibraryUnavailable }
    // Before anything makes a metric (the live hub does): metrics made before the bootstrap go nowhere.
    _ = MetricsBootstrap.registry
    try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
    let media = try FolderMediaStorage(directory: configuration.mediaDirectory)
    let worker = PhotoWorker(
        processor: PhotoProcessor(maxPixels: configuration.maxPixels), media: media,
        concurrency: configuration.imageConcurrency)
    let protection = Protection(
        rates: configuration.rateLimits, logins: LoginThrottle(policy: configuration.loginThrottle),
        hashingConcurrency: max(1, ProcessInfo.processInfo.activeProcessorCount / 2))
    if configuration.demo {
        // Seeded through the use cases, without the limits that would slow a newcomer's first start.
        let seeding = Core(
            store: store, protection: Protection(rates: .unlimited, hashingConcurrency: 1), worker: worker,
            bcryptCost: configuration.bcryptCost, deletion: NoAccountDeletion(),
            maxUploadBytes: configuration.maxUploadBytes)
        try await DemoData(core: seeding).seed(logger: logger)
    }
    let hub = LiveHub(bus: bus, isPrivate: { store.accountIsPrivate($0) })
    let limits = ClientLimits(protection: protection, proxies: configuration.trustedProxies)
    let deletion = AccountDeletion(store: store, media: media, logger: logger)
    let core = Core(
        store: store, protection: protection, worker: worker, bcryptCost: configuration.bcryptCost,
        deletion: deletion, maxUploadBytes: configuration.maxUploadBytes,
        maxPhotosPerPost: configuration.maxPhotosPerPost)
    var live = LiveOptions()
    live.queueLimit = configuration.liveQueueLimit
    live.closeGrace = configuration.liveCloseGrace
    live.maxSocketsPerUser = configuration.rateLimits.maxSocketsPerUser
    live.work = configuration.rateLimits.liveWork
    // No WebSocket extension is offered (per-message deflate would have to transform every frame), so the live
    // engine may write finished frames directly; see LiveOptions.directWrites.
    let webSocket = WebSocketServerConfiguration(
        maxFrameSize: 64 * 1024, autoPing: .enabled(timePeriod: configuration.livePingInterval), validateUTF8: true)
    live.directWrites = webSocket.extensions.isEmpty
    let events = EventsController(core: core, hub: hub, limits: limits, options: live)
    let web = try WebController(
        maxUploadBytes: configuration.maxUploadBytes, maxPhotosPerPost: configuration.maxPhotosPerPost)
    let federation = configuration.publicURL.map { url in
        Federation(
            core: core,
            options: FederationOptions(
                publicURL: url, allowPrivatePeers: configuration.allowPrivatePeers,
                stopTryingAfter: TimeInterval(configuration.stopTryingServersAfter),
                remoteMediaBudget: configuration.remoteMediaBudget > 0 ? configuration.remoteMediaBudget : nil,
                remoteMediaMaxAge: configuration.remoteMediaMaxAge > 0
                    ? TimeInterval(configuration.remoteMediaMaxAge) : nil),
            logger: logger, remoteActors: sinks.remoteActors, keys: sinks.actorKeys)
    }
    if let federation {
        core.remote.use(federation)
        logger.info("federation on", metadata: ["public url": "\(federation.options.base)"])
    } else {
        // Nothing is delivered while federation is off, and the change log is not kept for it.
        try await store.leaveChangeLog(consumer: type(of: store).federationConsumer)
    }
    let router = buildRouter(
        core: core, events: events, web: web, federation: federation, configuration: configuration)
    let connectionLimits = configuration.connections
    let counter = ConnectionCounter(
        limit: connectionLimits.effectiveMaxConnections, perAddress: connectionLimits.effectiveMaxPerAddress,
        exempt: configuration.trustedProxies)
    logger.info("connection limit", metadata: ["max": "\(counter.limit)", "per address": "\(counter.perAddress)"])
    let webSocketResponder = events.webSocketRouter(
        mastodon: MastodonStreaming(store: store, hub: hub, limits: limits)
    ).buildResponder()
    return Application(
        router: router,
        server: HTTPServerBuilder { responder in
            GuardedChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: ExpectContinue.responder(responder), webSocketResponder: webSocketResponder,
                    configuration: .init(http1: .init(additionalChannelHandlers: [RequestObserver()]), ws: webSocket)),
                limits: connectionLimits, counter: counter)
        },
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "makestagram"),
        services: [
            hub, protection.hashing, MediaSweep(store: store, media: media, logger: logger),
            VariantBackfill(store: store, worker: worker, logger: logger), deletion,
            ActivityConsumer(store: store, bell: sinks.bell, logger: logger),
        ] + (federation.map { [FederationService(federation: $0)] + $0.services(bell: sinks.federationBell) } ?? [])
            + services,
        logger: logger)
}

/// All routes and middleware over one store's use cases.
func buildRouter<S: Store>(
    core: Core<S>, events: EventsController<S>, web: WebController, federation: Federation<S>?,
    configuration: ServerConfiguration
) -> Router<AppRequestContext> {
    let store = core.store
    let methods = MethodTable()
    let base = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    let router = RecordingRouter(base, table: methods)
    _ = MetricsBootstrap.registry
    router.add(middleware: ProblemMiddleware(methods: methods, notFoundPage: web.notFoundPage))
    router.addRoutes(SystemController(registry: MetricsBootstrap.registry).routes)
    var restore: (@Sendable (String) async -> Bool)? = nil
    if let federation {
        restore = { file in await federation.restoreMedia(file) }
    }
    router.addRoutes(MediaController(media: core.media, store: store, restore: restore).routes)
    if let federation {
        router.addRoutes(FederationController(federation: federation).routes)
        router.add(middleware: PostDocumentMiddleware(federation: federation))
    }
    router.addRoutes(web.routes)
    let limits = events.limits
    let accounts = AccountsController(core: core, limits: limits)
    let oauth = OAuthController(core: core, limits: limits)
    router.addRoutes(oauth.publicRoutes)
    let mastodon = MastodonController(core: core, limits: limits)
    router.addRoutes(mastodon.publicRoutes)
    router.group("api/v1").addRoutes(accounts.publicRoutes)
    router.group("api/v1").addRoutes(events.publicRoutes)
    let authenticated = BearerAuthMiddleware(accounts: core.accounts, limits: limits)
    let api = router.group("api/v1").add(middleware: authenticated)
    api.addRoutes(accounts.routes)
    api.addRoutes(oauth.routes)
    api.addRoutes(ProfileController(core: core).routes)
    let rendered = RenderedPosts()
    api.addRoutes(UsersController(core: core, rendered: rendered).routes)
    api.addRoutes(PostsController(core: core, rendered: rendered).routes)
    api.addRoutes(InteractionsController(core: core).routes)
    api.addRoutes(ActivityController(core: core).routes)
    api.addRoutes(ModerationController(core: core, federation: federation).routes)
    api.addRoutes(mastodon.routes)
    api.addRoutes(MastodonStreaming(store: store, hub: events.hub, limits: limits).routes)
    router.group("api/v2").add(middleware: authenticated).addRoutes(mastodon.routesV2)
    let exports = configuration.dataDirectory.appendingPathComponent("exports")
    ExportController<S>.sweep(exports)
    api.addRoutes(
        ExportController(store: store, media: core.media, limits: limits, temporaryDirectory: exports).routes)
    api.addRoutes(events.routes)
    return base
}
