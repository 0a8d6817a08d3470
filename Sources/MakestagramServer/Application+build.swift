import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import MakestagramStore
import MakestagramStoreSQLite
import Photos

/// Why the server could not start.
public enum StartupError: Error, CustomStringConvertible {
    /// libvips could not be initialised (is libvips installed?).
    case imageLibraryUnavailable
    /// The web client's files are not beside the executable.
    case webClientMissing

    public var description: String {
        switch self {
        case .imageLibraryUnavailable: "libvips failed to start; install libvips (Debian: apt-get install libvips-dev)"
        case .webClientMissing:
            "the web client's files are missing; run the server from its build folder (makestagram_MakestagramServer.resources)"
        }
    }
}

/// Opens (creating and migrating) the data folder, sweeps stray media, seeds demo data if asked, and returns the
/// application ready to run.
public func buildApplication(_ configuration: ServerConfiguration) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "makestagram")
    logger.logLevel = configuration.logLevel
    guard PhotoProcessor.prepare() else { throw StartupError.imageLibraryUnavailable }
    try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
    let bus = LocalEventBus()
    let store = SQLiteStore(database: try AppDatabase(path: configuration.databasePath), events: bus)
    let media = try MediaStore(directory: configuration.mediaDirectory)
    let swept = try media.sweep(keeping: try await store.referencedMediaFiles())
    if swept > 0 { logger.notice("removed media files no post refers to", metadata: ["count": "\(swept)"]) }
    let worker = PhotoWorker(
        processor: PhotoProcessor(maxPixels: configuration.maxPixels), media: media,
        concurrency: configuration.imageConcurrency)
    if configuration.demo {
        try await DemoData(store: store, worker: worker, bcryptCost: configuration.bcryptCost).seed(logger: logger)
    }
    let hub = LiveHub(bus: bus)
    let events = EventsController(
        store: store, hub: hub, tickets: EventTickets(), queueLimit: configuration.liveQueueLimit,
        closeGrace: configuration.liveCloseGrace)
    let web = try WebController(maxUploadBytes: configuration.maxUploadBytes)
    let router = buildRouter(store: store, worker: worker, events: events, web: web, configuration: configuration)
    return Application(
        router: router,
        server: .http1WebSocketUpgrade(
            webSocketRouter: events.webSocketRouter(),
            configuration: .init(
                ws: WebSocketServerConfiguration(
                    maxFrameSize: 64 * 1024, autoPing: .enabled(timePeriod: configuration.livePingInterval)))),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "makestagram"),
        services: [hub],
        logger: logger)
}

/// All routes and middleware over one store.
func buildRouter<S: Store>(
    store: S, worker: PhotoWorker, events: EventsController<S>, web: WebController, configuration: ServerConfiguration
) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    _ = MetricsBootstrap.registry
    router.add(middleware: ProblemMiddleware())
    router.addRoutes(SystemController(registry: MetricsBootstrap.registry).routes)
    router.addRoutes(MediaController(media: worker.media).routes)
    router.addRoutes(web.routes)
    let accounts = AccountsController(
        store: store, throttle: LoginThrottle(), bcryptCost: max(10, configuration.bcryptCost))
    router.group("api/v1").addRoutes(accounts.publicRoutes)
    router.group("api/v1").addRoutes(events.publicRoutes)
    let api = router.group("api/v1").add(middleware: BearerAuthMiddleware(store: store))
    api.addRoutes(accounts.routes)
    let rendered = RenderedPosts()
    api.addRoutes(UsersController(store: store, rendered: rendered).routes)
    api.addRoutes(
        PostsController(
            store: store, worker: worker, rendered: rendered, maxUploadBytes: configuration.maxUploadBytes
        ).routes)
    api.addRoutes(InteractionsController(store: store).routes)
    api.addRoutes(events.routes)
    return router
}
