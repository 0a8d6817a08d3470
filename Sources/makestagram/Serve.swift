import ArgumentParser
import Configuration
import Foundation
import Hummingbird
import Logging
import MakestagramCore
import MakestagramServer

/// `makestagram serve`: runs the HTTP server.
///
/// The options are parsed here only to be handed to swift-configuration (``ServerConfiguration/load(flags:file:)``),
/// which takes each setting from the command line, the environment or a configuration file, in that order, and
/// checks it; the defaults written in the help are ``ServerConfiguration``'s.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the Makestagram server.",
        discussion: """
            With no options it listens on 127.0.0.1:8080 and keeps everything (SQLite database and photos) in \
            ./makestagram-data, creating and migrating it as needed. Every option can also be set with the \
            environment variable named in its help, or in a JSON file given with --config whose keys are the \
            options' names ({"port": 8081, "rate-limits": ["likes=300/m"]}); an option on the command line wins, \
            then the environment, then the file.
            """)

    @Option(help: "Address to listen on (MAKESTAGRAM_HOST). (default: 127.0.0.1)")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free port (MAKESTAGRAM_PORT). (default: 8080)")
    var port: Int?

    @Option(
        name: .customLong("data"),
        help: "Folder for the database and media (MAKESTAGRAM_DATA). (default: makestagram-data)")
    var dataDirectory: String?

    @Option(
        help: ArgumentHelp(
            "A PostgreSQL database shared by several instances, postgres://user:password@host:5432/database "
                + "(MAKESTAGRAM_DATABASE); media stay in --data, which the instances must share. "
                + "(default: SQLite in --data)",
            valueName: "url"))
    var database: String?

    @Option(help: "Largest upload in bytes; larger bodies get 413 (MAKESTAGRAM_MAX_UPLOAD_BYTES). (default: 20971520)")
    var maxUploadBytes: Int?

    @Option(help: "Most photos a post may hold, 1 to 20 (MAKESTAGRAM_MAX_PHOTOS_PER_POST). (default: 10)")
    var maxPhotosPerPost: Int?

    @Option(help: "Most pixels an uploaded image may have; more gets 422 (MAKESTAGRAM_MAX_PIXELS). (default: 50000000)")
    var maxPixels: Int?

    @Option(
        help: ArgumentHelp(
            "Uploads decoded at once; bounds memory (MAKESTAGRAM_IMAGE_CONCURRENCY). "
                + "(default: \(ProcessInfo.processInfo.activeProcessorCount), the number of cores)"))
    var imageConcurrency: Int?

    @Option(
        help:
            "Log level: trace, debug, info, notice, warning, error or critical (MAKESTAGRAM_LOG_LEVEL). (default: info)"
    )
    var logLevel: String?

    @Option(
        help: "Most connections open at once; default: what the open-file limit allows (MAKESTAGRAM_MAX_CONNECTIONS).")
    var maxConnections: Int?

    @Option(
        help: ArgumentHelp(
            "Most connections one client address (an IPv6 /64) may hold; trusted proxies are not counted "
                + "(MAKESTAGRAM_MAX_CONNECTIONS_PER_ADDRESS). (default: an eighth of --max-connections, 8 to 128)"))
    var maxConnectionsPerAddress: Int?

    @Option(help: "Seconds a client gets to send a request's head (MAKESTAGRAM_HEADER_TIMEOUT). (default: 15)")
    var headerTimeout: Int?

    @Option(help: "Seconds an idle keep-alive connection stays open (MAKESTAGRAM_IDLE_TIMEOUT). (default: 60)")
    var idleTimeout: Int?

    @Option(
        help:
            "Slowest request body accepted: bytes per second after the header timeout (MAKESTAGRAM_MIN_UPLOAD_RATE). (default: 1024)"
    )
    var minUploadRate: Int?

    @Option(
        name: .customLong("rate-limit"),
        help: ArgumentHelp(
            "Change a rate limit: NAME=COUNT/PERIOD (period s, m, h or d, e.g. likes=120/m) or NAME=off; repeatable; "
                + "all=off turns every limit off (load tests only). "
                + "Names: \(RateLimits.names.joined(separator: ", ")) (MAKESTAGRAM_RATE_LIMITS, comma-separated).",
            valueName: "name=limit"))
    var rateLimits: [String] = []

    @Option(
        help: ArgumentHelp(
            "Reverse proxies whose X-Forwarded-For names the client: addresses or CIDR ranges, comma-separated "
                + "(MAKESTAGRAM_TRUSTED_PROXIES)."))
    var trustedProxies: String?

    @Option(
        help: ArgumentHelp(
            "The origin this server is known by to other servers, e.g. https://example.social; federation "
                + "(ActivityPub) is on when it is set (MAKESTAGRAM_PUBLIC_URL)."))
    var publicURL: String?

    @Flag(
        help: ArgumentHelp(
            "Let federation reach servers on loopback, private and link-local addresses, over plain HTTP too: for "
                + "tests and closed networks (MAKESTAGRAM_ALLOW_PRIVATE_PEERS=1)."))
    var allowPrivatePeers = false

    @Option(
        help: ArgumentHelp(
            "Seconds another server may fail without answering once before deliveries to it stop until it sends "
                + "something (default a week; MAKESTAGRAM_STOP_TRYING_SERVERS_AFTER)."))
    var stopTryingServersAfter: Int?

    @Option(
        help: ArgumentHelp(
            "Bytes of other servers' photos kept at most; the longest kept are removed past it and fetched again when "
                + "asked for (MAKESTAGRAM_REMOTE_MEDIA_BUDGET). (default: 0, no limit)"))
    var remoteMediaBudget: Int?

    @Option(
        help: ArgumentHelp(
            "Seconds another server's photo is kept before it is removed (and fetched again when asked for) "
                + "(MAKESTAGRAM_REMOTE_MEDIA_MAX_AGE). (default: 0, no limit)"))
    var remoteMediaMaxAge: Int?

    @Option(
        help: ArgumentHelp(
            "How the kernel schedules the server's threads: batch (a woken thread waits for the running one, fewer "
                + "interruptions) or normal (MAKESTAGRAM_CPU_SCHEDULING). (default: batch on SQLite, normal on "
                + "PostgreSQL)"))
    var cpuScheduling: String?

    @Flag(
        help: ArgumentHelp(
            "Seed demo users (alice, bob, carol, dave; password 'makestagram') with posts, likes and comments "
                + "(MAKESTAGRAM_DEMO=1)."))
    var demo = false

    @Option(name: .customLong("config"), help: "A JSON file of settings, named as the options (MAKESTAGRAM_CONFIG).")
    var configFile: String?

    /// The options given on the command line, by setting.
    var flags: [ServerConfiguration.Key: ConfigContent] {
        var flags: [ServerConfiguration.Key: ConfigContent] = [:]
        func set(_ key: ServerConfiguration.Key, _ value: String?) { if let value { flags[key] = .string(value) } }
        func set(_ key: ServerConfiguration.Key, _ value: Int?) { if let value { flags[key] = .int(value) } }
        set(.host, host)
        set(.port, port)
        set(.data, dataDirectory)
        set(.database, database)
        set(.maxUploadBytes, maxUploadBytes)
        set(.maxPixels, maxPixels)
        set(.maxPhotosPerPost, maxPhotosPerPost)
        set(.imageConcurrency, imageConcurrency)
        set(.logLevel, logLevel)
        set(.maxConnections, maxConnections)
        set(.maxConnectionsPerAddress, maxConnectionsPerAddress)
        set(.headerTimeout, headerTimeout)
        set(.idleTimeout, idleTimeout)
        set(.minUploadRate, minUploadRate)
        set(.trustedProxies, trustedProxies)
        if !rateLimits.isEmpty { flags[.rateLimits] = .stringArray(rateLimits) }
        set(.publicURL, publicURL)
        set(.stopTryingServersAfter, stopTryingServersAfter)
        set(.remoteMediaBudget, remoteMediaBudget)
        set(.remoteMediaMaxAge, remoteMediaMaxAge)
        set(.cpuScheduling, cpuScheduling)
        if demo { flags[.demo] = .bool(true) }
        if allowPrivatePeers { flags[.allowPrivatePeers] = .bool(true) }
        return flags
    }

    func run() async throws {
        EventLoopThreads.matchAllowedCores()
        let configuration: ServerConfiguration
        do {
            configuration = try await ServerConfiguration.load(
                flags: flags, file: configFile ?? ProcessInfo.processInfo.environment["MAKESTAGRAM_CONFIG"])
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
        ConnectionLimits.raiseDescriptorLimit()
        configuration.threadScheduling.apply()
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in ServerLogHandler(label: label, logLevel: level) }
        let app = try await buildApplication(configuration)
        try await app.runService()
    }
}
