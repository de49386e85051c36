import Foundation

/// Prepared databases and stores (say, the 1M-row to-do table), built once per benchmark
/// process and copied into each run's fresh directory, so a run that measures an `UPDATE`
/// does not also pay for the inserts before it.
///
/// Both engines use it: the SQLite side caches `.sqlite` files, the Strata side store
/// directories.
actor FixtureCache {
    private let root: URL
    private var built: Set<String> = []

    /// Creates a cache that keeps its fixtures under `root`.
    init(root: URL) {
        self.root = root
    }

    /// Copies the fixture named `key` into `destination` (which must not exist yet), first
    /// building it with `build` if this process has not built it yet.
    ///
    /// `build` receives an empty directory to fill. If it throws, nothing is cached and the
    /// error propagates.
    ///
    /// - Returns: `destination`.
    func copy(_ key: String, to destination: URL,
              build: @Sendable (URL) async throws -> Void) async throws -> URL {
        let source = root.appendingPathComponent(key, isDirectory: true)
        if !built.contains(key) {
            try? FileManager.default.removeItem(at: source)
            try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
            log("building fixture \(key)…")
            do {
                try await build(source)
            } catch {
                try? FileManager.default.removeItem(at: source)
                throw error
            }
            built.insert(key)
        }
        try FileManager.default.copyItem(at: source, to: destination)
        Files.settle()  // the copy's dirty pages must not be written back during the measurement
        return destination
    }
}
