// swift-tools-version: 6.2
// A PostgreSQL-only app: Strata with `traits: ["PostgreSQL"]`. CI builds it and checks
// that it neither fetched nor built GRDB, and that a container then has no default store.
import Foundation
import PackageDescription

let strataIdentity = URL(fileURLWithPath: "../../", relativeTo: URL(fileURLWithPath: Context.packageDirectory + "/"))
    .standardizedFileURL.lastPathComponent

let package = Package(
    name: "PostgresApp",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../../", traits: ["PostgreSQL"])],
    targets: [
        .executableTarget(
            name: "postgres-app",
            dependencies: [
                .product(name: "Strata", package: strataIdentity),
                .product(name: "StrataPostgres", package: strataIdentity),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
