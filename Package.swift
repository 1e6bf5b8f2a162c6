// swift-tools-version:6.0
import Foundation
import PackageDescription

/// One set of Swift settings for every target: Swift 6 language mode (strict concurrency).
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

/// The Breez Spark SDK (the `spark:` Lightning backend) is built in when `scripts/install-spark.sh`
/// has put its native library and generated Swift bindings in Generated/spark (docs/decisions/0004);
/// where it could not (no wheel for this CPU), Hawala builds without it.
let sparkDirectory = Context.packageDirectory + "/Generated/spark"
let sparkAvailable = FileManager.default.fileExists(atPath: sparkDirectory + "/ready")

let package = Package(
    name: "Hawala",
    // Mutex and Atomic (Synchronization) need these; the library modules build without
    // Linux-only code (the executables' CMalloc and a few server calls are conditional).
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "HawalaCrypto", targets: ["HawalaCrypto"]),
        .library(name: "HawalaFormat", targets: ["HawalaFormat"]),
        .library(name: "HawalaText", targets: ["HawalaText"]),
        .library(name: "HawalaKeys", targets: ["HawalaKeys"]),
        .library(name: "HawalaWallet", targets: ["HawalaWallet"]),
        .library(name: "HawalaBackup", targets: ["HawalaBackup"]),
        .library(name: "HawalaPaper", targets: ["HawalaPaper"]),
        .library(name: "HawalaOnChain", targets: ["HawalaOnChain"]),
        .library(name: "HawalaLightning", targets: ["HawalaLightning"]),
        .library(name: "HawalaDevnet", targets: ["HawalaDevnet"]),
        .library(name: "HawalaVault", targets: ["HawalaVault"]),
        .library(name: "HawalaVaultStorage", targets: ["HawalaVaultStorage"]),
        .library(name: "HawalaVaultAgent", targets: ["HawalaVaultAgent"]),
        .library(name: "HawalaVaultPostgres", targets: ["HawalaVaultPostgres"]),
        .library(name: "HawalaVaultClient", targets: ["HawalaVaultClient"]),
        .executable(name: "hawala", targets: ["hawala"]),
        .executable(name: "hawala-vault", targets: ["hawala-vault"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.7.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", exact: "0.12.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CSecp256k1",
            pkgConfig: "libsecp256k1",
            providers: [.apt(["libsecp256k1-dev"]), .brew(["secp256k1"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"]), .brew(["cairo"])]
        ),
        .systemLibrary(name: "CMalloc"),  // glibc's mallopt, for the executables (Linux only)
        .systemLibrary(name: "CHardening"),  // prctl(PR_SET_DUMPABLE): no core dump of a process holding secrets
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"]), .brew(["qrencode"])]
        ),
        .target(
            name: "HawalaCrypto",
            dependencies: [
                "CHardening",
                "CSecp256k1",
                "CSodium",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HawalaKeys",
            dependencies: ["HawalaCrypto", "HawalaText"],
            resources: [.copy("Resources/wordlists")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HawalaWallet",
            dependencies: ["HawalaCrypto", "HawalaText", "HawalaHome", "HawalaKeys", .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "Logging", package: "swift-log")],
            resources: [.copy("Resources/password-dictionary.txt")],
            swiftSettings: swiftSettings
        ),
        // The .hawala file's identity (magic, version, sizes): key-free, shared by the backup
        // code and the vault server.
        .target(name: "HawalaFormat", swiftSettings: swiftSettings),
        // Money and how it is written: Sats/Msat with checked arithmetic, amounts, dates and JSON
        // as people and scripts read them, text limits in the units a spec counts.
        .target(name: "HawalaText", swiftSettings: swiftSettings),
        // Where Hawala's data lives ($HAWALA_HOME, XDG): key-free, shared by the wallet and the
        // vault server's default database.
        .target(name: "HawalaHome", swiftSettings: swiftSettings),
        .target(
            name: "HawalaBackup",
            dependencies: ["HawalaCrypto", "HawalaFormat", "HawalaKeys", "HawalaLightning", "HawalaText", "HawalaWallet", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HawalaPaper",
            dependencies: ["HawalaCrypto", "HawalaKeys", "HawalaWallet", "CCairo", "CQREncode"],
            swiftSettings: swiftSettings
        ),
        // The on-chain wallet of the Bitcoin-family accounts (Bitcoin, Litecoin): descriptors,
        // sync from a node, coins, history, coin selection, signing, in the wallet store.
        .target(
            name: "HawalaOnChain",
            dependencies: [
                "HawalaCrypto", "HawalaText", "HawalaKeys", "HawalaWallet",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HawalaLightning",
            dependencies: [
                "HawalaCrypto", "HawalaText", "HawalaKeys", "HawalaOnChain", "HawalaWallet",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The development network, devnet: Lightning between wallets of this machine on one SQLite
        // ledger, its chain, LNURL and L402 servers. Test money; the payment library never imports it.
        .target(
            name: "HawalaDevnet",
            dependencies: [
                "HawalaCrypto", "HawalaText", "HawalaKeys", "HawalaLightning", "HawalaWallet",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Nostr as NIP-47 needs it: events (NIP-01), NIP-44 v2 and NIP-04 encryption, relay
        // sessions over WebSocket (Hummingbird's client), Wallet Connect URIs. No wallet code.
        .target(
            name: "HawalaNostr",
            dependencies: [
                "HawalaCrypto", "HawalaText",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // App connections at work: the one rule by which a program pays (ConnectionPayer), NIP-47's
        // methods over it (NWCHandler), and the wallet service on Nostr relays (NWCService).
        .target(
            name: "HawalaSell",
            dependencies: [
                "HawalaCrypto", "HawalaKeys", "HawalaText", "HawalaLightning", "HawalaWallet",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HawalaConnect",
            dependencies: [
                "HawalaCrypto", "HawalaKeys", "HawalaText", "HawalaLightning", "HawalaNostr", "HawalaWallet",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // What the vault's client, the app and the server share: backups, settings, the schedule,
        // the vault's errors. No storage, no network, no key code.
        .target(name: "HawalaVault", swiftSettings: swiftSettings),
        // The server's storage: users and tokens, backups in chunks, rate limits, the integrity
        // check; SQLite here, PostgreSQL in HawalaVaultPostgres. Linked by the server only.
        .target(
            name: "HawalaVaultStorage",
            dependencies: [
                "HawalaVault", "HawalaText",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HawalaVaultPostgres",
            dependencies: [
                "HawalaVault", "HawalaVaultStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The vault's HTTP API: types, server stubs and client generated from openapi.yaml.
        .target(
            name: "HawalaVaultAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .target(
            name: "HawalaVaultServer",
            dependencies: [
                "HawalaFormat", "HawalaText", "HawalaVault", "HawalaVaultStorage", "HawalaVaultAPI",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        // The vault's client: typed calls over the generated client. No wallet, no storage.
        .target(
            name: "HawalaVaultClient",
            dependencies: [
                "HawalaCrypto", "HawalaFormat", "HawalaText", "HawalaKeys", "HawalaVault", "HawalaVaultAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        // The wallet's side of the vault: the login saved in the wallet store, and the agent that
        // uploads the wallets' snapshots on the user's schedule.
        .target(
            name: "HawalaVaultAgent",
            dependencies: ["HawalaCrypto", "HawalaText", "HawalaWallet", "HawalaBackup", "HawalaVault", "HawalaVaultClient"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HawalaVaultTests",
            dependencies: [
                "HawalaVault", "HawalaVaultStorage", "HawalaVaultClient", "HawalaVaultAgent", "HawalaCrypto", "HawalaText", "HawalaVaultServer", "HawalaVaultAPI",
                "HawalaVaultPostgres",
                "HawalaWallet", "HawalaBackup", "HawalaKeys", "HawalaTestSupport",
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HawalaLightningTests",
            dependencies: ["HawalaLightning", "HawalaDevnet", "HawalaCrypto", "HawalaText", "HawalaKeys", "HawalaOnChain", "HawalaWallet", "HawalaTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            resources: [.copy("Vectors")],
            swiftSettings: swiftSettings
        ),
        // `hawala app`: the wallet's screens served on 127.0.0.1 (Hummingbird + swift-mustache).
        .target(
            name: "HawalaApp",
            dependencies: [
                "HawalaBackup", "HawalaConnect", "HawalaCrypto", "HawalaFormat", "HawalaText", "HawalaKeys", "HawalaLightning", "HawalaNostr", "HawalaOnChain", "HawalaPaper",
                "HawalaVault", "HawalaVaultClient", "HawalaVaultAgent", "HawalaWallet",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Templates"), .copy("Static")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HawalaAppTests",
            dependencies: [
                "HawalaApp", "HawalaConnect", "HawalaCrypto", "HawalaDevnet", "HawalaText", "HawalaKeys", "HawalaLightning", "HawalaNostr", "HawalaOnChain", "HawalaWallet", "HawalaTestSupport",
                "HawalaBackup", "HawalaVault", "HawalaVaultStorage", "HawalaVaultClient", "HawalaVaultAgent", "HawalaVaultServer",
                // The CLI, run beside the app on the same inputs (FacesAgreeTests).
                "hawala",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hawala",
            dependencies: [
                .target(name: "CMalloc", condition: .when(platforms: [.linux])), "CHardening", "HawalaCrypto", "HawalaText", "HawalaKeys", "HawalaWallet", "HawalaBackup",
                "HawalaPaper", "HawalaLightning", "HawalaDevnet", "HawalaApp", "HawalaConnect", "HawalaNostr", "HawalaOnChain", "HawalaSell",
                // The vault's client side only: the server is hawala-vault.
                "HawalaVault", "HawalaVaultClient", "HawalaVaultAgent",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ] + (sparkAvailable ? ["HawalaSpark"] : []),
            swiftSettings: swiftSettings
        ),
        // The vault server and its operator's commands: only the vault modules, no key code.
        .executableTarget(
            name: "hawala-vault",
            dependencies: [
                .target(name: "CMalloc", condition: .when(platforms: [.linux])), "CHardening", "HawalaText", "HawalaHome", "HawalaVault", "HawalaVaultStorage",
                "HawalaVaultServer", "HawalaVaultPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hawala-bench",
            dependencies: ["HawalaCrypto", "HawalaText", "HawalaKeys", "HawalaWallet", "HawalaBackup", "HawalaLightning", "HawalaDevnet", "HawalaOnChain",
                           .target(name: "CMalloc", condition: .when(platforms: [.linux]))]
                + (sparkAvailable ? ["HawalaSpark"] : []),
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HawalaTestSupport",
            dependencies: ["HawalaCrypto", "HawalaKeys", "HawalaWallet"],
            path: "Tests/HawalaTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HawalaConnectTests",
            dependencies: ["HawalaConnect", "HawalaDevnet", "HawalaNostr", "HawalaLightning", "HawalaSell", "HawalaWallet", "HawalaCrypto", "HawalaText", "HawalaKeys", "HawalaTestSupport",
                           .product(name: "Logging", package: "swift-log"), .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "MCP", package: "swift-sdk")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HawalaNostrTests",
            dependencies: ["HawalaNostr", "HawalaCrypto", .product(name: "Logging", package: "swift-log"), .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket")],
            resources: [.copy("Vectors")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HawalaCryptoTests",
            dependencies: ["HawalaCrypto"],
            resources: [.copy("Vectors")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HawalaKeysTests",
            dependencies: ["HawalaCrypto", "HawalaKeys", "HawalaText", "HawalaTestSupport"],
            resources: [.copy("Vectors")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HawalaOnChainTests",
            dependencies: ["HawalaOnChain", "HawalaCrypto", "HawalaKeys", "HawalaText", "HawalaWallet", "HawalaTestSupport"],
            resources: [.copy("Vectors")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HawalaWalletTests",
            // The store's tables of Lightning history and wallets' transfer are tested with it.
            dependencies: ["HawalaCrypto", "HawalaKeys", "HawalaText", "HawalaWallet", "HawalaLightning", "HawalaBackup", "HawalaTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "Logging", package: "swift-log")],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HawalaBackupTests",
            dependencies: ["HawalaCrypto", "HawalaFormat", "HawalaKeys", "HawalaLightning", "HawalaWallet", "HawalaBackup", "HawalaTestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HawalaPaperTests",
            dependencies: ["HawalaCrypto", "HawalaKeys", "HawalaPaper", "HawalaTestSupport", "HawalaWallet"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HawalaCLITests",
            // Runs the built hawala and hawala-vault binaries.
            dependencies: ["hawala", "hawala-vault", "HawalaCrypto", "HawalaKeys", "HawalaText", "HawalaWallet", "HawalaBackup", "HawalaLightning", "HawalaTestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)

// The libFuzzer target exists only for `make fuzz` (HAWALA_FUZZ=1): it has no main of its own.
if ProcessInfo.processInfo.environment["HAWALA_FUZZ"] != nil {
    package.targets.append(.executableTarget(name: "hawala-fuzz", dependencies: ["HawalaBackup", "HawalaKeys", "HawalaLightning"], swiftSettings: swiftSettings))
    package.products.append(.executable(name: "hawala-fuzz", targets: ["hawala-fuzz"]))
}

if sparkAvailable {
    package.targets += [
        // Generated by uniffi-bindgen at setup, never committed: the C header and module map of the
        // SDK's library, and the Swift bindings (Swift 5 mode; their warnings are not ours).
        .systemLibrary(name: "breez_sdk_sparkFFI", path: "Generated/spark/breez_sdk_sparkFFI"),
        .target(
            name: "BreezSdkSpark",
            dependencies: ["breez_sdk_sparkFFI"],
            path: "Generated/spark/BreezSdkSpark",
            swiftSettings: [.swiftLanguageMode(.v5), .unsafeFlags(["-suppress-warnings"])],
            // The library is found next to the executable, in ../lib (an installed copy), or in
            // Generated/spark/lib from .build/<triple>/<config>/ and .build/asan/<triple>/<config>/.
            linkerSettings: [.unsafeFlags([
                "-L", sparkDirectory + "/lib",
                "-Xlinker", "-rpath=$ORIGIN", "-Xlinker", "-rpath=$ORIGIN/../lib",
                "-Xlinker", "-rpath=$ORIGIN/../../../Generated/spark/lib",
                "-Xlinker", "-rpath=$ORIGIN/../../../../Generated/spark/lib",
            ])]
        ),
        // Hawala's only door to the SDK: a PaymentBackend over it. No other module imports the
        // generated types.
        .target(
            name: "HawalaSpark",
            dependencies: ["BreezSdkSpark", "breez_sdk_sparkFFI", "HawalaCrypto", "HawalaText", "HawalaLightning", "HawalaKeys", "HawalaWallet"],
            swiftSettings: swiftSettings
        ),
        // Its tests also call the SDK directly: to check the adapter against the SDK's own
        // parser and its words-based connect.
        .testTarget(
            name: "HawalaSparkTests",
            dependencies: ["HawalaSpark", "BreezSdkSpark", "HawalaLightning", "HawalaText", "HawalaKeys", "HawalaWallet", "HawalaCrypto", "HawalaTestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
    // No library product: the bindings' target links with unsafe flags (the SDK's library
    // beside the binary), which a package depending on Hawala may not use.
}
