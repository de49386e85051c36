// swift-tools-version: 6.1
// Strata's benchmarks: the same workloads on Strata and on SQLite (through GRDB.swift), side by
// side, with the machine's physical limits measured in the same run. A package of its own, so
// the library gains no dependency.

import PackageDescription

// STRATA_MACRO_PLUGIN=PATH: as in Strata's Package.swift, expand the models' macros with a
// plugin already built (a debug build's `StrataMacros-tool`), so a release build of the
// benchmarks does not compile swift-syntax (over 45 minutes on a busy 2-core machine).
let macroPluginFlags: [SwiftSetting] = Context.environment["STRATA_MACRO_PLUGIN"].flatMap {
    $0.isEmpty ? nil : [.unsafeFlags(["-load-plugin-executable", "\($0)#StrataMacros"])]
} ?? []

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The benchmark's entities as @Model classes, for the typed workloads (a module of
        // their own: the data generator has value types of the same names).
        .target(
            name: "StrataBenchModels",
            dependencies: [.product(name: "StrataModels", package: "Strata")],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ] + macroPluginFlags
        ),
        .executableTarget(
            name: "strata-bench",
            dependencies: [
                "StrataBenchModels",
                .product(name: "StrataModels", package: "Strata"),
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataStorage", package: "Strata"),
                // `run --encryption` (issue 23): AES-GCM stores beside plain ones.
                .product(name: "StrataEncryption", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the best SQLite side (one prepared statement, raw binds).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        ),
        // The slow Strata workloads as plain synchronous code, for valgrind's callgrind
        // (which crashes on strata-bench's async main).
        .executableTarget(
            name: "strata-profile",
            dependencies: [
                "StrataBenchModels",
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataStorage", package: "Strata"),
                .product(name: "StrataEncryption", package: "Strata"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        ),
        // Issue 22's replication figures against PostgreSQL's own limits (COPY, a plain INSERT
        // commit). Built only when asked for (`--product strata-replication-bench`): it links
        // postgres-nio through StrataReplication.
        .executableTarget(
            name: "strata-replication-bench",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataStorage", package: "Strata"),
                .product(name: "StrataReplication", package: "Strata"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// With STRATA_WITHOUT_REPLICATION=1, Strata's package has no StrataReplication product: leave
// the replication benchmark out, so that the others still build that way.
if Context.environment["STRATA_WITHOUT_REPLICATION"] == "1" {
    package.targets.removeAll { $0.name == "strata-replication-bench" }
}
