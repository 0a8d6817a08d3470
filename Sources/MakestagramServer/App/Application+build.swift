// MakestagramServer: the HTTP server — configuration, start-up and the operator's commands (App), connection guards
// (Connections), rate limits and input checks (Protection), errors and middleware (HTTP), the API's routes (Routes),
// posts' JSON and its cache (Rendering), photo uploads and files (Media), deleting accounts in the background
// (Accounts), logs and metrics (Observability) and demo data (Demo) — over a Store, the live engine and the web
// client.

import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
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
    let bus = LocalEventBus()
    guard let database = configuration.database else {
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        let store = SQLiteStore(database: try AppDatabase(path: configuration.databasePath), events: bus)
        return try await buildApplication(configuration, store: store, bus: bus)
    }
    var logger = Logger(label: "makestagram.postgres")
    logger.logLevel = configuration.logLevel
    let store: PostgresStore
    do {
        store = try await PostgresStore.open(database, events: bus, logger: logger)
    } catch let error as StoreError {
        let reason =
            switch error {
            case .unavailable(let detail), .database(let detail): detail
            default: "\(error)"
            }
        throw StartupError.databaseUnreachable(database: database.displayName, reason: reason)
    }
    return try await buildApplication(configuration, store: store, bus: bus, services: [store])
}

/// The application over an open SQLite database (tests open theirs to reach it while the server runs).
func buildApplication(_ configuration: ServerConfiguration, database: AppDatabase) async throws
    -> some ApplicationProtocol
{
    let bus = LocalEventBus()
    return try await buildApplication(configuration, store: SQLiteStore(database: database, events: bus), bus: bus)
}

/// The application over `store`, whose committed changes (of every instance, for a shared database) arrive on `bus`;
/// `services` run with the server (a PostgreSQL store's change stream).
func buildApplication<S: Store>(
    _ configuration: ServerConfiguration, store: S, bus: LocalEventBus, services: [any Service] = []
) async throws -> Application<RouterResponder<AppRequestContext>> {
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
    if configuration.demo {
        try await DemoData(store: store, worker: worker, bcryptCost: configuration.bcryptCost).seed(logger: logger)
    }
    let hub = LiveHub(bus: bus)
    let limits = ClientLimits(
        rates: configuration.rateLimits, proxies: configuration.trustedProxies,
        logins: LoginThrottle(policy: configuration.loginThrottle),
        hashingConcurrency: max(1, ProcessInfo.processInfo.activeProcessorCount / 2))
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
    let events = EventsController(
        store: store, hub: hub, tickets: EventTickets(store: store), limits: limits, options: live)
    let web = try WebController(maxUploadBytes: configuration.maxUploadBytes)
    let deletion = AccountDeletion(store: store, media: media, logger: logger)
    let router = buildRouter(
        store: store, worker: worker, events: events, web: web, deletion: deletion, configuration: configuration)
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
            hub, limits.hashing, MediaSweep(store: store, media: media, logger: logger),
            VariantBackfill(store: store, worker: worker, logger: logger), deletion,
        ] + services,
        logger: logger)
}

/// All routes and middleware over one store.
func buildRouter<S: Store>(
    store: S, worker: PhotoWorker, events: EventsController<S>, web: WebController,
    deletion: any AccountDeletionTrigger, configuration: ServerConfiguration
) -> Router<AppRequestContext> {
    let methods = MethodTable()
    let base = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    let router = RecordingRouter(base, table: methods)
    _ = MetricsBootstrap.registry
    router.add(middleware: ProblemMiddleware(methods: methods, notFoundPage: web.notFoundPage))
    router.addRoutes(SystemController(registry: MetricsBootstrap.registry).routes)
    router.addRoutes(MediaController(media: worker.media, store: store).routes)
    router.addRoutes(web.routes)
    let limits = events.limits
    let accounts = AccountsController(
        store: store, limits: limits, bcryptCost: max(10, configuration.bcryptCost), deletion: deletion)
    let oauth = OAuthController(store: store, limits: limits)
    router.addRoutes(oauth.publicRoutes)
    let mastodon = MastodonController(
        store: store, worker: worker, limits: limits, maxUploadBytes: configuration.maxUploadBytes)
    router.addRoutes(mastodon.publicRoutes)
    router.group("api/v1").addRoutes(accounts.publicRoutes)
    router.group("api/v1").addRoutes(events.publicRoutes)
    let api = router.group("api/v1").add(middleware: BearerAuthMiddleware(store: store, limits: limits))
    api.addRoutes(accounts.routes)
    api.addRoutes(oauth.routes)
    api.addRoutes(
        ProfileController(
            store: store, worker: worker, limits: limits, maxUploadBytes: configuration.maxUploadBytes
        ).routes)
    let rendered = RenderedPosts()
    api.addRoutes(UsersController(store: store, rendered: rendered, limits: limits).routes)
    api.addRoutes(
        PostsController(
            store: store, worker: worker, rendered: rendered, limits: limits,
            maxUploadBytes: configuration.maxUploadBytes
        ).routes)
    api.addRoutes(InteractionsController(store: store, limits: limits).routes)
    api.addRoutes(ActivityController(store: store).routes)
    api.addRoutes(ModerationController(store: store, media: worker.media).routes)
    api.addRoutes(mastodon.routes)
    api.addRoutes(MastodonStreaming(store: store, hub: events.hub, limits: limits).routes)
    router.group("api/v2").add(middleware: BearerAuthMiddleware(store: store, limits: limits)).addRoutes(
        mastodon.routesV2)
    let exports = configuration.dataDirectory.appendingPathComponent("exports")
    ExportController<S>.sweep(exports)
    api.addRoutes(
        ExportController(store: store, media: worker.media, limits: limits, temporaryDirectory: exports).routes)
    api.addRoutes(events.routes)
    return base
}
