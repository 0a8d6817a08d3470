import ArgumentParser
import Foundation
import Hummingbird
import Logging
import MakestagramServer

/// `makestagram serve`: runs the HTTP server.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the Makestagram server.",
        discussion: """
            With no options it listens on 127.0.0.1:8080 and keeps everything (SQLite database and photos) in \
            ./makestagram-data, creating and migrating it as needed. Every option can also be set with the \
            environment variable named in its help; an option on the command line wins.
            """)

    static let environment = ProcessInfo.processInfo.environment

    @Option(help: "Address to listen on (MAKESTAGRAM_HOST).")
    var host = environment["MAKESTAGRAM_HOST"] ?? "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free port (MAKESTAGRAM_PORT).")
    var port = environment["MAKESTAGRAM_PORT"].flatMap(Int.init) ?? 8080

    @Option(name: .customLong("data"), help: "Folder for the database and media (MAKESTAGRAM_DATA).")
    var dataDirectory = environment["MAKESTAGRAM_DATA"] ?? "makestagram-data"

    @Option(help: "Largest upload in bytes; larger bodies get 413 (MAKESTAGRAM_MAX_UPLOAD_BYTES).")
    var maxUploadBytes = environment["MAKESTAGRAM_MAX_UPLOAD_BYTES"].flatMap(Int.init) ?? 20 * 1024 * 1024

    @Option(help: "Most pixels an uploaded image may have; more gets 422 (MAKESTAGRAM_MAX_PIXELS).")
    var maxPixels = environment["MAKESTAGRAM_MAX_PIXELS"].flatMap(Int.init) ?? 50_000_000

    @Option(help: "Uploads decoded at once; bounds memory (MAKESTAGRAM_IMAGE_CONCURRENCY).")
    var imageConcurrency =
        environment["MAKESTAGRAM_IMAGE_CONCURRENCY"].flatMap(Int.init) ?? ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical (MAKESTAGRAM_LOG_LEVEL).")
    var logLevel = environment["MAKESTAGRAM_LOG_LEVEL"] ?? "info"

    @Option(
        help: "Most connections open at once; default: what the open-file limit allows (MAKESTAGRAM_MAX_CONNECTIONS).")
    var maxConnections = environment["MAKESTAGRAM_MAX_CONNECTIONS"].flatMap(Int.init)

    @Option(help: "Seconds a client gets to send a request's head (MAKESTAGRAM_HEADER_TIMEOUT).")
    var headerTimeout = environment["MAKESTAGRAM_HEADER_TIMEOUT"].flatMap(Int.init) ?? 15

    @Option(help: "Seconds an idle keep-alive connection stays open (MAKESTAGRAM_IDLE_TIMEOUT).")
    var idleTimeout = environment["MAKESTAGRAM_IDLE_TIMEOUT"].flatMap(Int.init) ?? 60

    @Option(
        help: "Slowest request body accepted: bytes per second after the header timeout (MAKESTAGRAM_MIN_UPLOAD_RATE).")
    var minUploadRate = environment["MAKESTAGRAM_MIN_UPLOAD_RATE"].flatMap(Int.init) ?? 1024

    @Option(
        name: .customLong("rate-limit"),
        help: ArgumentHelp(
            "Change a rate limit: NAME=COUNT/PERIOD (period s, m, h or d, e.g. likes=120/m) or NAME=off; repeatable; "
                + "all=off turns every limit off (load tests only). "
                + "Names: \(RateLimits.names.joined(separator: ", ")) (MAKESTAGRAM_RATE_LIMITS, comma-separated).",
            valueName: "name=limit"))
    var rateLimits: [String] =
        environment["MAKESTAGRAM_RATE_LIMITS"].map { $0.split(separator: ",").map(String.init) } ?? []

    @Option(
        help: ArgumentHelp(
            "Reverse proxies whose X-Forwarded-For names the client: addresses or CIDR ranges, comma-separated "
                + "(MAKESTAGRAM_TRUSTED_PROXIES)."))
    var trustedProxies = environment["MAKESTAGRAM_TRUSTED_PROXIES"] ?? ""

    @Flag(help: "Seed demo users (alice, bob, carol, dave; password 'makestagram') with posts, likes and comments.")
    var demo = environment["MAKESTAGRAM_DEMO"] == "1"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        guard maxUploadBytes > 0 else { throw ValidationError("--max-upload-bytes must be positive") }
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive") }
        guard imageConcurrency > 0 else { throw ValidationError("--image-concurrency must be positive") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        guard maxConnections.map({ $0 > 0 }) ?? true else {
            throw ValidationError("--max-connections must be positive")
        }
        guard headerTimeout > 0, idleTimeout > 0, minUploadRate > 0 else {
            throw ValidationError("--header-timeout, --idle-timeout and --min-upload-rate must be positive")
        }
        var limits = RateLimits()
        for setting in rateLimits where !limits.apply(setting) {
            throw ValidationError("--rate-limit \(setting): write NAME=COUNT/PERIOD or NAME=off")
        }
        guard TrustedProxies(parsing: trustedProxies) != nil else {
            throw ValidationError("--trusted-proxies: write addresses or CIDR ranges, comma-separated")
        }
    }

    func run() async throws {
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.dataDirectory = URL(fileURLWithPath: dataDirectory)
        configuration.maxUploadBytes = maxUploadBytes
        configuration.maxPixels = maxPixels
        configuration.imageConcurrency = imageConcurrency
        configuration.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        configuration.demo = demo
        configuration.connections.maxConnections = maxConnections
        configuration.connections.headTimeout = .seconds(headerTimeout)
        configuration.connections.idleTimeout = .seconds(idleTimeout)
        configuration.connections.minBodyBytesPerSecond = minUploadRate
        for setting in rateLimits { _ = configuration.rateLimits.apply(setting) }
        configuration.trustedProxies = TrustedProxies(parsing: trustedProxies) ?? TrustedProxies()
        ConnectionLimits.raiseDescriptorLimit()
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in ServerLogHandler(label: label, logLevel: level) }
        let app = try await buildApplication(configuration)
        try await app.runService()
    }
}
