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
        // Helpers for apps' tests: containers per store kind, awaiting events, graph checks.
        .library(name: "StrataTesting", targets: ["StrataTesting"]),
        // The PostgreSQL store, a product of its own so SQLite-only apps do not build postgres-nio.
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        .executable(name: "strata", targets: ["strata"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", "602.0.0"..<"604.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `swift package generate-documentation` (CI builds the docs with warnings as errors).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The runtime: models, store, contexts, container. No swift-syntax.
        .target(
            name: "StrataCore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        .target(
            name: "StrataTesting",
            dependencies: ["StrataCore"],
            swiftSettings: strictSettings),
        // The PostgreSQL store on postgres-nio.
        .target(
            name: "StrataPostgres",
            dependencies: [
                "StrataCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
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
            dependencies: ["StrataCore", "StrataMacros"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "strata",
            dependencies: [
                "Strata", "StrataPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        // Example programs, built with everything else: `swift run notes-example`, `swift run importer-example`.
        .executableTarget(
            name: "notes-example",
            dependencies: ["Strata"],
            path: "Examples/Notes",
            swiftSettings: strictSettings),
        .executableTarget(
            name: "importer-example",
            dependencies: ["Strata"],
            path: "Examples/Importer",
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
                "Strata", "StrataTesting", "StrataTestModels", "StrataPostgres", "strata-test-writer", "strata",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings),
        // Against a real server: STRATA_POSTGRES_URL (CI starts one, see .ci/postgres.sh).
        .testTarget(
            name: "StrataPostgresTests",
            dependencies: [
                "Strata", "StrataPostgres", "StrataTesting", "StrataTestModels", "strata-test-writer",
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
