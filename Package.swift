// swift-tools-version: 6.1
// Strata: an embedded object-graph store for Swift (Core Data's model on Linux),
// persisted to an LZ4-compressed, checksummed write-ahead log with snapshots.

import CompilerPluginSupport
import PackageDescription

// STRATA_MACRO_PLUGIN=PATH: expand `@Model` and the other macros with a plugin already built
// (the debug build's `StrataMacros-tool`) instead of building the macro target, and with it
// swift-syntax, again. `scripts/tsan` sets it: the sanitizer's build directory would otherwise
// compile swift-syntax a second time in every CI run (2–3 minutes on this machine). The
// macro target and its tests are left out of such a build; every target gets the plugin.
let prebuiltMacroPlugin = Context.environment["STRATA_MACRO_PLUGIN"].flatMap { $0.isEmpty ? nil : $0 }

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
] + (prebuiltMacroPlugin.map { [.unsafeFlags(["-load-plugin-executable", "\($0)#StrataMacros"])] } ?? [])

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataStorage", targets: ["StrataStorage"]),
        .library(name: "StrataModels", targets: ["StrataModels"]),
        .library(name: "StrataEncryption", targets: ["StrataEncryption"]),
        .executable(name: "strata", targets: ["StrataInspector"]),
        .executable(name: "todo", targets: ["todo"]),
        .executable(name: "people", targets: ["people"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"604.0.0"),
        // AES-GCM and HKDF for StrataEncryption (already resolved for postgres-nio). From 4.0:
        // 3.x's `SymmetricKey` is not `Sendable`, which StrataEncryption's strict concurrency needs.
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
    ],
    targets: [
        // Layer 1: Debian's liblz4-dev, wrapped by exactly one Swift file in StrataStorage.
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"]), .brew(["lz4"])]
        ),
        // Layer 1: one header-only C function, the CPU's CRC-32C instruction (Swift has no
        // intrinsic for it); CRC32C.swift falls back to portable Swift when the CPU lacks it.
        .target(name: "CCRC32C"),
        // Layer 1: declarations (no code) of the five BoringSSL AEAD functions that
        // StrataEncryption calls to open and seal in place; swift-crypto's `Crypto` product
        // links their definitions (Sources/CStrataAEAD/include/strata_aead.h says why).
        .target(name: "CStrataAEAD"),
        // Layer 2: bytes on disk — frames, log segments, snapshots, recovery, the I/O seam.
        .target(
            name: "StrataStorage",
            dependencies: ["CLZ4", "CCRC32C"],
            swiftSettings: strictSettings
        ),
        // Layers 3–6: model, store coordinator, contexts and objects, requests.
        .target(
            name: "Strata",
            dependencies: ["StrataStorage"],
            swiftSettings: strictSettings
        ),
        // Encryption at rest (docs/FORMAT.md, "Encryption"): AES-GCM from swift-crypto behind
        // the StoreCipher seam of StrataStorage, which (like Strata) stays free of it, since
        // scripts/fuzz compiles those two by hand.
        .target(
            name: "StrataEncryption",
            dependencies: ["Strata", "StrataStorage", "CStrataAEAD", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        // Layer 7: typed models. The macros run in the compiler (a host plugin on
        // swift-syntax); `StrataModels` declares them and re-exports `Strata`, whose
        // `Typed/` folder holds the runtime they expand to. Only code that writes `@Model`
        // builds swift-syntax: the core and the inspector do not.
        .target(
            name: "StrataModels",
            dependencies: prebuiltMacroPlugin == nil ? ["Strata", "StrataMacros"] : ["Strata"],
            swiftSettings: strictSettings
        ),
        // Layer 10: the `strata` inspector, a command-line tool over a store directory
        // (`--key-file`, `encrypt`, `decrypt` and `rotate-key` through StrataEncryption).
        .executableTarget(
            name: "StrataInspector",
            dependencies: ["Strata", "StrataStorage", "StrataEncryption", .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/StrataInspector",
            swiftSettings: strictSettings,
            // A release `strata` links the Swift runtime and Foundation statically: a one-shot
            // command then maps only the code it uses, not every shared library's pages
            // (issue 21: peak memory of `strata count`, 27.5 MB with the shared libraries).
            // It links with the toolchain's lld and packs its relative relocations (DT_RELR,
            // glibc 2.36): the binary stays position-independent, and the loader no longer
            // reads a 2.8 MB table of them at start-up (`strata count`'s peak 24.4 → 21.8 MB).
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                             "-Xlinker", "--start-group", "-lFoundation", "-lFoundationEssentials",
                                             "-lFoundationInternationalization", "-lCoreFoundation", "-l_FoundationICU",
                                             "-l_FoundationCShims", "-l_FoundationCollections", "-Xlinker", "--end-group"],
                                            .when(platforms: [.linux], configuration: .release))]
        ),
        // Examples: the Core Data tutorials as terminal programs.
        .executableTarget(name: "todo", dependencies: ["StrataModels"], path: "Examples/todo", swiftSettings: strictSettings),
        .executableTarget(name: "people", dependencies: ["StrataModels"], path: "Examples/people", swiftSettings: strictSettings),
        // Shared test helpers: the simulated file system, generators, temporary directories.
        .target(
            name: "StrataTestSupport",
            dependencies: ["StrataStorage"],
            path: "Tests/StrataTestSupport",
            swiftSettings: strictSettings
        ),
        // Test-only helper: a second process for the writer-lock race (LockRaceTests).
        .executableTarget(
            name: "StrataLockProbe",
            dependencies: ["StrataStorage"],
            path: "Tests/StrataLockProbe",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataStorageTests",
            dependencies: [
                "StrataStorage", "StrataTestSupport", "StrataLockProbe",
                // AES-GCM for the encrypted runs of the recovery sweeps (bit flip, torn tail, power loss).
                "StrataEncryption", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSettings
        ),
        // Test-only helper: the writer process a read-only store follows (FollowerProcessTests).
        .executableTarget(
            name: "StrataFollowWriter",
            dependencies: ["Strata"],
            path: "Tests/StrataFollowWriter",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: [
                "Strata", "StrataStorage", "StrataTestSupport", "StrataFollowWriter",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataEncryptionTests",
            dependencies: ["StrataEncryption", "Strata", "StrataStorage", "StrataTestSupport"],
            swiftSettings: strictSettings
        ),
        // Typed models: @Model classes, FetchDescriptor, #Predicate translation.
        .testTarget(
            name: "StrataModelsTests",
            dependencies: ["StrataModels", "StrataTestSupport"],
            swiftSettings: strictSettings
        ),
        // Runs the built `strata` binary against the stores in Fixtures/inspector.
        .testTarget(
            name: "StrataInspectorTests",
            dependencies: ["Strata", "StrataStorage", "StrataTestSupport", "StrataInspector"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The macros' own target (see layer 7 above): left out when a prebuilt plugin expands them
// (STRATA_MACRO_PLUGIN, at the top).
if prebuiltMacroPlugin == nil {
    package.targets.append(
        .macro(
            name: "StrataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings
        )
    )
}

// Expansion and diagnostic tests of the macros themselves (they link the swift-syntax that
// the macro plugin is built with; SwiftPM compiles it once per build directory).
// STRATA_WITHOUT_MACRO_TESTS=1 leaves out their compile and link; so does a prebuilt plugin.
if Context.environment["STRATA_WITHOUT_MACRO_TESTS"] != "1" && prebuiltMacroPlugin == nil {
    package.targets.append(
        .testTarget(
            name: "StrataMacrosTests",
            dependencies: [
                "StrataMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings
        )
    )
}

// Layer 9: replication to PostgreSQL (docs/REPLICATION.md), a product of its own on
// postgres-nio, so that the core library and the examples gain no dependency (the `strata`
// tool links it for `strata restore`, and is built without that command when it is left out).
// `scripts/tsan` sets STRATA_WITHOUT_REPLICATION=1: the sanitizer stage runs none of it, so
// its build leaves out postgres-nio and everything under it (swift-nio, swift-crypto, …).
// The fuzz build (scripts/fuzz) compiles its own modules with swiftc and never includes it.
if Context.environment["STRATA_WITHOUT_REPLICATION"] != "1" {
    package.dependencies.append(.package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"))
    package.products.append(.library(name: "StrataReplication", targets: ["StrataReplication"]))
    package.targets.append(contentsOf: [
        .target(
            name: "StrataReplication",
            dependencies: ["Strata", "StrataStorage", .product(name: "PostgresNIO", package: "postgres-nio")],
            swiftSettings: strictSettings
        ),
        // Test-only helper: a primary's process with a synchronous replicator, killed
        // mid-commit by NetworkFaultTests.
        .executableTarget(
            name: "StrataShippingWriter",
            dependencies: ["Strata", "StrataReplication"],
            path: "Tests/StrataShippingWriter",
            swiftSettings: strictSettings
        ),
        // Runs against the PostgreSQL server that scripts/test starts (STRATA_POSTGRES_URL),
        // and runs the built `strata` for `strata restore`.
        .testTarget(
            name: "StrataReplicationTests",
            dependencies: ["StrataReplication", "Strata", "StrataStorage", "StrataTestSupport", "StrataInspector", "StrataShippingWriter",
                           "StrataEncryption", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
    ])
    // `strata restore` (Sources/StrataInspector/RestoreCommand.swift) is compiled in only here.
    if let inspector = package.targets.first(where: { $0.name == "StrataInspector" }) {
        inspector.dependencies.append("StrataReplication")
        inspector.swiftSettings = (inspector.swiftSettings ?? []) + [.define("STRATA_REPLICATION")]
    }
}

// STRATA_WITHOUT_ENCRYPTION=1: leave out swift-crypto and everything built on it —
// StrataEncryption and its tests, the `strata` inspector (`--key-file`, `encrypt`, …) and its
// tests. `scripts/tsan` sets it: the sanitizer stage runs none of them, and its build, which
// compiled BoringSSL's C sources once more under the sanitizer, took 409 s with them in a CI
// run and 123 s without (on another machine). The recovery sweeps' encrypted runs
// (StrataStorageTests, `SweepCipher`) stop with a message in such a build; the plain build
// runs them.
if Context.environment["STRATA_WITHOUT_ENCRYPTION"] == "1" {
    let dropped: Set<String> = ["CStrataAEAD", "StrataEncryption", "StrataEncryptionTests", "StrataInspector", "StrataInspectorTests"]
    let droppedProducts: Set<String> = ["Crypto", "ArgumentParser"]
    package.targets.removeAll { dropped.contains($0.name) }
    package.products.removeAll { ["StrataEncryption", "strata"].contains($0.name) }
    for target in package.targets {
        target.dependencies.removeAll { dependency in
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): return dropped.contains(name)
            case .productItem(let name, _, _, _): return droppedProducts.contains(name)
            @unknown default: return false
            }
        }
    }
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return false }
        return location.hasSuffix("/swift-crypto.git") || location.hasSuffix("/swift-argument-parser")
    }
}
