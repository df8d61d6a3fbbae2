// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataCore", targets: ["StrataCore"]),
        // The SQLite store and its file tools, on GRDB; `Strata` includes it with the SQLite trait.
        .library(name: "StrataSQLite", targets: ["StrataSQLite"]),
        // Helpers for apps' tests: containers per store kind, awaiting events, graph checks.
        .library(name: "StrataTesting", targets: ["StrataTesting"]),
        // The PostgreSQL store, a product of its own so SQLite-only apps do not build postgres-nio.
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        // A container as a swift-service-lifecycle Service, for servers.
        .library(name: "StrataServiceLifecycle", targets: ["StrataServiceLifecycle"]),
        .executable(name: "strata", targets: ["strata"]),
    ],
    // What an app does not use, it need not build: `traits: ["SQLite"]` on an app's
    // `.package` line leaves out postgres-nio (with swift-nio and swift-crypto) and
    // swift-service-lifecycle; `traits: ["PostgreSQL"]` leaves out SQLite and GRDB. All are
    // on by default, so the plain line has every product.
    traits: [
        .trait(name: "SQLite", description: "The SQLite store (the default store) and its file tools, on GRDB."),
        .trait(name: "PostgreSQL", description: "The StrataPostgres product and postgres-nio."),
        .trait(name: "ServiceLifecycle", description: "The StrataServiceLifecycle product and swift-service-lifecycle."),
        .default(enabledTraits: ["SQLite", "PostgreSQL", "ServiceLifecycle"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", "602.0.0"..<"604.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `swift package generate-documentation` (CI builds the docs with warnings as errors).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The runtime: models, the store boundary and the in-memory store, contexts,
        // container. Neither swift-syntax nor any database library.
        .target(
            name: "StrataCore",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings),
        // What the SQL stores share: quoting, the query renderer and its dialects' hooks.
        .target(
            name: "StrataSQL",
            dependencies: ["StrataCore"],
            swiftSettings: strictSettings),
        // The SQLite store on GRDB, and the tools that read and write store files.
        .target(
            name: "StrataSQLite",
            dependencies: [
                "StrataCore", "StrataSQL",
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["SQLite"])),
                .product(name: "GRDBSQLite", package: "GRDB.swift", condition: .when(traits: ["SQLite"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings),
        .target(
            name: "StrataTesting",
            dependencies: ["Strata", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings),
        // The PostgreSQL store on postgres-nio.
        .target(
            name: "StrataPostgres",
            dependencies: [
                "StrataCore", "StrataSQL",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings),
        .target(
            name: "StrataServiceLifecycle",
            dependencies: [
                "StrataCore",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
            ],
            swiftSettings: strictSettings),
        // Macro implementations, compiled for the host.
        .macro(
            name: "StrataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings),
        // The public module: the runtime plus the macro declarations.
        .target(
            name: "Strata",
            dependencies: [
                "StrataCore", "StrataMacros", .target(name: "StrataSQLite", condition: .when(traits: ["SQLite"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "strata",
            dependencies: [
                "Strata", "StrataSQLite", .target(name: "StrataPostgres", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        // Models shared by the tests and the writer process they start.
        .target(
            name: "StrataTestModels",
            dependencies: ["Strata"],
            path: "Tests/StrataTestModels",
            swiftSettings: strictSettings),
        // A second process that writes to a store, for cross-process tests.
        .executableTarget(
            name: "strata-test-writer",
            dependencies: ["Strata", "StrataPostgres", "StrataTestModels"],
            path: "Tests/StrataTestWriter",
            swiftSettings: strictSettings),
        // Reliability trials: `swift run strata-reliability quick` (CI) or `full`.
        .executableTarget(
            name: "strata-reliability",
            dependencies: [
                "Strata", "StrataTestModels",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Reliability",
            swiftSettings: strictSettings),
        .testTarget(
            name: "StrataTests",
            dependencies: [
                "Strata", "StrataSQL", "StrataSQLite", "StrataTesting", "StrataTestModels", "StrataPostgres", "StrataServiceLifecycle", "strata-test-writer", "strata",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings),
        // Against a real server: STRATA_POSTGRES_URL (CI starts one, see .ci/postgres.sh).
        .testTarget(
            name: "StrataPostgresTests",
            dependencies: [
                "Strata", "StrataPostgres", "StrataSQL", "StrataTesting", "StrataTestModels", "strata-test-writer",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "StrataMacrosTests",
            dependencies: [
                "StrataMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings),
    ]
)
