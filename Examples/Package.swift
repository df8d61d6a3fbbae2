// swift-tools-version: 6.2
import Foundation
import PackageDescription

/// Strata is the enclosing package; a path dependency is known by its folder's name.
let strataIdentity = URL(fileURLWithPath: "../", relativeTo: URL(fileURLWithPath: Context.packageDirectory + "/"))
    .standardizedFileURL.lastPathComponent

/// Small programs that use Strata as an app would, each a product of its own:
/// `swift run --package-path Examples notes-example add "Groceries" --tag home`.
let package = Package(
    name: "StrataExamples",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // A command-line notes app: many-to-many tags, predicates, search regardless of case.
        .executableTarget(
            name: "notes-example",
            dependencies: [.product(name: "Strata", package: strataIdentity)],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // A server-style importer: concurrent background contexts, upserts, a history consumer.
        .executableTarget(
            name: "importer-example",
            dependencies: [.product(name: "Strata", package: strataIdentity)],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // A Hummingbird server whose container is a service of its ServiceGroup.
        .executableTarget(
            name: "library-server",
            dependencies: [
                .product(name: "Strata", package: strataIdentity),
                .product(name: "StrataPostgres", package: strataIdentity),
                .product(name: "StrataServiceLifecycle", package: strataIdentity),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
