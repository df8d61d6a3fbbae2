// swift-tools-version: 6.2
import Foundation
import PackageDescription

/// Strata itself: the enclosing package by default. `STRATA_PACKAGE_PATH` points
/// the suite at another checkout (e.g. a `git archive` snapshot of one commit)
/// so a run measures a fixed revision while the working tree changes.
let strataPath = Context.environment["STRATA_PACKAGE_PATH"] ?? "../"

/// A path dependency is known by its folder's name, whatever the checkout is called.
let strataIdentity = URL(fileURLWithPath: strataPath, relativeTo: URL(fileURLWithPath: Context.packageDirectory + "/"))
    .standardizedFileURL.lastPathComponent

/// The benchmark suite: Strata beside raw SQLite, GRDB and Fluent, in one run.
/// Run with `swift run -c release --package-path Benchmarks strata-benchmarks`.
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: strataPath),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/vapor/fluent-kit", exact: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver", exact: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", exact: "2.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        .executableTarget(
            name: "strata-benchmarks",
            dependencies: [
                .product(name: "StrataCore", package: strataIdentity),
                .product(name: "StrataSQLite", package: strataIdentity),
                .product(name: "StrataPostgres", package: strataIdentity),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
