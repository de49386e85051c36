// swift-tools-version: 6.1
// Strata: an embedded object-graph store for Swift (Core Data's model on Linux),
// persisted to an LZ4-compressed, checksummed write-ahead log with snapshots.

import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataStorage", targets: ["StrataStorage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // Layer 1: Debian's liblz4-dev, wrapped by exactly one Swift file in StrataStorage.
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"]), .brew(["lz4"])]
        ),
        // Layer 2: bytes on disk — frames, log segments, snapshots, recovery, the I/O seam.
        .target(
            name: "StrataStorage",
            dependencies: ["CLZ4"],
            swiftSettings: strictSettings
        ),
        // Layers 3–6: model, store coordinator, contexts and objects, requests.
        .target(
            name: "Strata",
            dependencies: ["StrataStorage"],
            swiftSettings: strictSettings
        ),
        // Shared test helpers: the simulated file system, generators, temporary directories.
        .target(
            name: "StrataTestSupport",
            dependencies: ["StrataStorage"],
            path: "Tests/StrataTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataStorageTests",
            dependencies: [
                "StrataStorage", "StrataTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: [
                "Strata", "StrataStorage", "StrataTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
