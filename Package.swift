// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "makestagram",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "makestagram", targets: ["makestagram"]),
        .library(name: "MakestagramAPI", targets: ["MakestagramAPI"]),
        .library(name: "Incremental", targets: ["Incremental"]),
        .library(name: "MakestagramServer", targets: ["MakestagramServer"]),
        .library(name: "MakestagramKit", targets: ["MakestagramKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        .target(name: "MakestagramAPI"),
        .target(name: "Incremental"),
        .target(
            name: "MakestagramKit",
            dependencies: [
                "MakestagramAPI", "Incremental",
                // URLSession's WebSocket task does not work on Linux; swift-websocket does (see LiveTransport).
                .product(name: "WSClient", package: "swift-websocket", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log", condition: .when(platforms: [.linux])),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: .when(platforms: [.linux])),
            ]
        ),
        .target(
            name: "MakestagramStore",
            dependencies: ["MakestagramAPI", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(name: "CSQLiteSettings", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "MakestagramStoreSQLite",
            dependencies: ["MakestagramStore", "CSQLiteSettings", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "MakestagramStorePostgres",
            dependencies: [
                "MakestagramStore", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "MakestagramLive",
            dependencies: [
                "MakestagramAPI", "MakestagramStore",
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(name: "MakestagramWeb", dependencies: ["MakestagramAPI"], resources: [.copy("web")]),
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]
        ),
        .target(name: "Photos", dependencies: ["CVips"]),
        .systemLibrary(
            name: "CLibcrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .target(
            name: "MakestagramCore",
            dependencies: [
                "MakestagramAPI", "MakestagramStore", "Photos",
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            resources: [.copy("Resources")]
        ),
        .target(
            name: "MakestagramFederation",
            dependencies: [
                "MakestagramAPI", "MakestagramStore", "MakestagramCore",
                .target(name: "CLibcrypto", condition: .when(platforms: [.linux])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "MakestagramServer",
            dependencies: [
                "MakestagramAPI", "MakestagramStore", "MakestagramStoreSQLite", "MakestagramStorePostgres",
                "MakestagramCore", "MakestagramLive", "MakestagramFederation",
                "MakestagramWeb",
                "Photos",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            resources: [.copy("Resources")]
        ),
        .executableTarget(
            name: "makestagram",
            dependencies: [
                "MakestagramServer", "MakestagramCore", "MakestagramKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "BareServer",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Benchmarks/BareServer"
        ),
        .executableTarget(
            name: "IncrementalBenchmark",
            dependencies: ["Incremental", .product(name: "OpenCombine", package: "OpenCombine")],
            path: "Benchmarks/IncrementalBenchmark"
        ),
        .executableTarget(
            name: "LiveBenchmark",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/LiveBenchmark"
        ),
        .target(name: "TestFixtures", path: "Tests/TestFixtures", resources: [.copy("photos")]),
        .target(
            name: "ServerTestSupport",
            dependencies: [
                "MakestagramServer", "MakestagramAPI", "TestFixtures",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/ServerTestSupport"
        ),
        .target(
            name: "PostgresTestSupport",
            dependencies: [
                "MakestagramStorePostgres", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PostgresTestSupport"
        ),
        .testTarget(
            name: "MakestagramStoreTests",
            dependencies: [
                "MakestagramStore", "MakestagramStoreSQLite", "MakestagramStorePostgres", "PostgresTestSupport",
                "MakestagramCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "PhotosTests", dependencies: ["Photos", "TestFixtures"]),
        .testTarget(
            name: "MakestagramLiveTests",
            dependencies: [
                "MakestagramLive", "MakestagramAPI", "MakestagramStore",
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "IncrementalTests", dependencies: ["Incremental"]),
        .testTarget(
            name: "MakestagramServerTests",
            dependencies: [
                "MakestagramServer", "MakestagramCore", "MakestagramFederation", "MakestagramStoreSQLite",
                "MakestagramLive",
                .product(name: "Configuration", package: "swift-configuration"), "Photos", "TestFixtures",
                "ServerTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "MakestagramKitTests",
            dependencies: [
                "MakestagramKit", "MakestagramAPI", "Incremental", "ServerTestSupport", "TestFixtures",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ]
)
