import Configuration
import Foundation
import Logging
import MakestagramAPI
import MakestagramCore
import MakestagramLive
import MakestagramStorePostgres
import SystemPackage

/// A setting that was given but cannot be used; says which and what it takes.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let key: ServerConfiguration.Key
    public let problem: String

    public var description: String {
        "--\(key.rawValue) (\(key.environmentVariable)): \(problem)"
    }
}

extension ServerConfiguration {
    /// Every setting of `makestagram serve`. The name is the command-line flag (`--max-upload-bytes`), the key in a
    /// JSON configuration file (`{"max-upload-bytes": 1048576}`) and, in capitals with `_` after `MAKESTAGRAM_`, the
    /// environment variable (`MAKESTAGRAM_MAX_UPLOAD_BYTES`).
    public enum Key: String, CaseIterable, Sendable {
        case host, port, data, database
        case maxUploadBytes = "max-upload-bytes"
        case maxPixels = "max-pixels"
        case maxPhotosPerPost = "max-photos-per-post"
        case imageConcurrency = "image-concurrency"
        case logLevel = "log-level"
        case demo
        case maxConnections = "max-connections"
        case maxConnectionsPerAddress = "max-connections-per-address"
        case headerTimeout = "header-timeout"
        case idleTimeout = "idle-timeout"
        case minUploadRate = "min-upload-rate"
        case rateLimits = "rate-limits"
        case trustedProxies = "trusted-proxies"
        case publicURL = "public-url"
        case allowPrivatePeers = "allow-private-peers"
        case stopTryingServersAfter = "stop-trying-servers-after"
        case remoteMediaBudget = "remote-media-budget"
        case remoteMediaMaxAge = "remote-media-max-age"
        case cpuScheduling = "cpu-scheduling"

        /// The environment variable that sets it.
        public var environmentVariable: String {
            "MAKESTAGRAM_" + rawValue.uppercased().replacingOccurrences(of: "-", with: "_")
        }

        var configKey: ConfigKey { ConfigKey(rawValue) }
    }

    /// The settings, each taken from the first place that has it: `flags` (from the command line), the environment
    /// (`MAKESTAGRAM_…`), the JSON file at `file`, or else the default. The values are checked: a setting that
    /// cannot be used throws ``ConfigurationError`` rather than falling back to its default.
    public static func load(
        flags: [Key: ConfigContent], environment: [String: String] = ProcessInfo.processInfo.environment,
        file: String? = nil
    ) async throws -> ServerConfiguration {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, content) in flags { values[AbsoluteConfigKey(key.configKey)] = ConfigValue(content, isSecret: false) }
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "command line", values: values),
            EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "makestagram"),
        ]
        if let file { providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(file))) }
        return try ServerConfiguration(reading: ConfigReader(providers: providers))
    }

    /// The settings `config` holds (keys as in ``Key``), the others at their defaults.
    public init(reading config: ConfigReader) throws {
        self.init()
        let read = Reader(config: config)
        if let host = try read.string(.host) { self.host = host }
        if let port = try read.int(.port, in: 0...65535) { self.port = port }
        if let data = try read.string(.data) { dataDirectory = URL(fileURLWithPath: data) }
        if let url = try read.string(.database), !url.isEmpty {
            do {
                database = try PostgresOptions(url: url)
            } catch let error as PostgresOptions.InvalidURL {
                throw ConfigurationError(key: .database, problem: error.description)
            }
        }
        if let bytes = try read.int(.maxUploadBytes, in: 1...Int.max) { maxUploadBytes = bytes }
        if let pixels = try read.int(.maxPixels, in: 1...Int.max) { maxPixels = pixels }
        if let photos = try read.int(.maxPhotosPerPost, in: 1...Post.photoLimitCeiling) { maxPhotosPerPost = photos }
        if let concurrency = try read.int(.imageConcurrency, in: 1...1024) { imageConcurrency = concurrency }
        if let level = try read.string(.logLevel) {
            guard let parsed = Logger.Level(rawValue: level) else {
                throw ConfigurationError(
                    key: .logLevel, problem: "'\(level)' is not trace, debug, info, notice, warning, error or critical")
            }
            logLevel = parsed
        }
        if let demo = try read.bool(.demo) { self.demo = demo }
        if let max = try read.int(.maxConnections, in: 1...Int.max) { connections.maxConnections = max }
        if let max = try read.int(.maxConnectionsPerAddress, in: 1...Int.max) { connections.maxPerAddress = max }
        if let seconds = try read.int(.headerTimeout, in: 1...86_400) { connections.headTimeout = .seconds(seconds) }
        if let seconds = try read.int(.idleTimeout, in: 1...86_400) { connections.idleTimeout = .seconds(seconds) }
        if let rate = try read.int(.minUploadRate, in: 1...Int.max) { connections.minBodyBytesPerSecond = rate }
        for setting in try read.strings(.rateLimits) where !rateLimits.apply(setting) {
            throw ConfigurationError(
                key: .rateLimits,
                problem: "'\(setting)': write NAME=COUNT/PERIOD or NAME=off, NAME one of "
                    + RateLimits.names.joined(separator: ", "))
        }
        if let list = try read.string(.trustedProxies) {
            guard let proxies = TrustedProxies(parsing: list) else {
                throw ConfigurationError(
                    key: .trustedProxies, problem: "'\(list)': write addresses or CIDR ranges, comma-separated")
            }
            trustedProxies = proxies
        }
        if let text = try read.string(.publicURL), !text.isEmpty {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "https" || scheme == "http",
                let host = url.host(percentEncoded: false), !host.isEmpty, url.user == nil, url.query == nil,
                url.fragment == nil, url.path.isEmpty || url.path == "/"
            else {
                throw ConfigurationError(
                    key: .publicURL, problem: "'\(text)': write an origin, https://host or http://host[:port]")
            }
            publicURL = url
        }
        if let allow = try read.bool(.allowPrivatePeers) { allowPrivatePeers = allow }
        if let seconds = try read.int(.stopTryingServersAfter, in: 1...(365 * 86_400)) {
            stopTryingServersAfter = seconds
        }
        if let bytes = try read.int(.remoteMediaBudget, in: 0...Int.max) { remoteMediaBudget = bytes }
        if let seconds = try read.int(.remoteMediaMaxAge, in: 0...(3650 * 86_400)) { remoteMediaMaxAge = seconds }
        if let text = try read.string(.cpuScheduling) {
            guard let policy = CPUScheduling(rawValue: text) else {
                throw ConfigurationError(key: .cpuScheduling, problem: "'\(text)' is not batch or normal")
            }
            cpuScheduling = policy
        }
    }

    /// Reads typed values strictly: a value that is there but not of the type is an error, not a default.
    private struct Reader {
        let config: ConfigReader

        func string(_ key: Key) throws -> String? {
            config.string(forKey: key.configKey)
        }

        func int(_ key: Key, in range: ClosedRange<Int>) throws -> Int? {
            guard let value = config.int(forKey: key.configKey) else {
                if let text = config.string(forKey: key.configKey) {
                    throw ConfigurationError(key: key, problem: "'\(text)' is not a whole number")
                }
                return nil
            }
            guard range.contains(value) else {
                throw ConfigurationError(
                    key: key,
                    problem: range.upperBound == .max
                        ? "must be at least \(range.lowerBound)" : "must be \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }

        func bool(_ key: Key) throws -> Bool? {
            guard let value = config.bool(forKey: key.configKey) else {
                if let text = config.string(forKey: key.configKey) {
                    throw ConfigurationError(key: key, problem: "'\(text)' is not true or false (or 1 or 0)")
                }
                return nil
            }
            return value
        }

        /// A list: an array in a file, or comma-separated text.
        func strings(_ key: Key) throws -> [String] {
            if let list = config.stringArray(forKey: key.configKey) { return list }
            return config.string(forKey: key.configKey).map { $0.split(separator: ",").map(String.init) } ?? []
        }
    }
}
