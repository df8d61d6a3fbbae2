// swift-tools-version: 6.2
// A SQLite-only app as the README describes it: Strata with `traits: ["SQLite"]`. CI builds it
// and checks that it neither fetched nor built postgres-nio, swift-nio or swift-crypto.
import Foundation
import PackageDescription

let strataIdentity = URL(fileURLWithPath: "../../", relativeTo: URL(fileURLWithPath: Context.packageDirectory + "/"))
    .standardizedFileURL.lastPathComponent

let package = Package(
    name: "LightApp",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../../", traits: ["SQLite"])],
    targets: [
        .executableTarget(
            name: "light-app", dependencies: [.product(name: "Strata", package: strataIdentity)],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
