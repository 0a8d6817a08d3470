import Configuration
import Foundation
import MakestagramAPI
import MakestagramCore
import MakestagramLive
import Testing

@testable import MakestagramServer

/// `serve`'s settings through swift-configuration: flags, then the environment, then a JSON file, then defaults.
@Suite struct ConfigurationTests {
    @Test func noSettingsMeansTheDefaults() async throws {
        let configuration = try await ServerConfiguration.load(flags: [:], environment: [:])
        #expect(configuration.host == "127.0.0.1" && configuration.port == 8080)
        #expect(configuration.dataDirectory.lastPathComponent == "makestagram-data")
        #expect(configuration.maxUploadBytes == 20 * 1024 * 1024 && configuration.maxPixels == 50_000_000)
        #expect(configuration.logLevel == .info && !configuration.demo)
        #expect(configuration.rateLimits == RateLimits() && configuration.trustedProxies.isEmpty)
        #expect(configuration.connections == ConnectionLimits())
        #expect(configuration.cpuScheduling == nil && configuration.threadScheduling == .batch)
    }

    @Test func flagsWinOverTheEnvironmentWhichWinsOverTheFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("makestagram-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(
            #"""
            {"port": 9001, "host": "0.0.0.0", "max-upload-bytes": 1000, "demo": true,
             "rate-limits": ["likes=5/m", "posts=off"], "header-timeout": 5}
            """#.utf8
        ).write(to: file)
        let configuration = try await ServerConfiguration.load(
            flags: [.port: .int(9003)],
            environment: ["MAKESTAGRAM_PORT": "9002", "MAKESTAGRAM_MAX_UPLOAD_BYTES": "2000", "PORT": "1"],
            file: file.path)
        #expect(configuration.port == 9003)
        #expect(configuration.maxUploadBytes == 2000)
        #expect(configuration.host == "0.0.0.0" && configuration.demo)
        #expect(
            configuration.rateLimits.likes == RateLimit(5, per: .seconds(60)) && configuration.rateLimits.posts == nil)
        #expect(configuration.connections.headTimeout == .seconds(5))
    }

    @Test func theEnvironmentUsesTheDocumentedNames() async throws {
        let configuration = try await ServerConfiguration.load(
            flags: [:],
            environment: [
                "MAKESTAGRAM_DATA": "/srv/photos", "MAKESTAGRAM_DEMO": "1", "MAKESTAGRAM_LOG_LEVEL": "debug",
                "MAKESTAGRAM_RATE_LIMITS": "likes=off,signups=3/h", "MAKESTAGRAM_TRUSTED_PROXIES": "10.0.0.0/8",
                "MAKESTAGRAM_IMAGE_CONCURRENCY": "3", "MAKESTAGRAM_MAX_CONNECTIONS": "500",
                "MAKESTAGRAM_CPU_SCHEDULING": "normal",
            ])
        #expect(configuration.dataDirectory.path == "/srv/photos" && configuration.demo)
        #expect(configuration.logLevel == .debug && configuration.imageConcurrency == 3)
        #expect(
            configuration.rateLimits.likes == nil
                && configuration.rateLimits.signUps == RateLimit(3, per: .seconds(3600)))
        #expect(!configuration.trustedProxies.isEmpty && configuration.connections.maxConnections == 500)
        #expect(configuration.threadScheduling == .normal)
    }

    @Test func aDatabaseURLChoosesPostgreSQLAndNoneKeepsSQLite() async throws {
        #expect(try await ServerConfiguration.load(flags: [:], environment: [:]).database == nil)
        let configuration = try await ServerConfiguration.load(
            flags: [:],
            environment: ["MAKESTAGRAM_DATABASE": "postgres://maker:s%40cret@db.internal:6543/photos?pool=8"])
        // The password never appears in what is logged.
        #expect(configuration.database?.displayName == "maker@db.internal:6543/photos")
        // On PostgreSQL the threads keep the normal policy unless told otherwise.
        #expect(configuration.threadScheduling == .normal)
        let batch = try await ServerConfiguration.load(
            flags: [.cpuScheduling: .string("batch")], environment: ["MAKESTAGRAM_DATABASE": "postgres://db/photos"])
        #expect(batch.threadScheduling == .batch)
    }

    @Test func aSettingThatCannotBeUsedIsAnErrorNotADefault() async throws {
        for (environment, key) in [
            (["MAKESTAGRAM_PORT": "eighty"], ServerConfiguration.Key.port),
            (["MAKESTAGRAM_PORT": "70000"], .port),
            (["MAKESTAGRAM_LOG_LEVEL": "loud"], .logLevel),
            (["MAKESTAGRAM_RATE_LIMITS": "likes=lots"], .rateLimits),
            (["MAKESTAGRAM_TRUSTED_PROXIES": "proxy.example"], .trustedProxies),
            (["MAKESTAGRAM_DEMO": "maybe"], .demo),
            (["MAKESTAGRAM_MAX_UPLOAD_BYTES": "0"], .maxUploadBytes),
            (["MAKESTAGRAM_DATABASE": "mysql://db/makestagram"], .database),
            (["MAKESTAGRAM_DATABASE": "postgres://db/makestagram?sslmode=sometimes"], .database),
            (["MAKESTAGRAM_DATABASE": "postgres://db/makestagram?pool=0"], .database),
            (["MAKESTAGRAM_CPU_SCHEDULING": "realtime"], .cpuScheduling),
        ] {
            await #expect {
                _ = try await ServerConfiguration.load(flags: [:], environment: environment)
            } throws: { error in
                guard let error = error as? ConfigurationError else { return false }
                return error.key == key && error.description.contains(key.environmentVariable)
            }
        }
    }
}
