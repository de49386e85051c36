import Foundation

/// What one run of one side of a workload gets: the data, a fresh empty directory, and the
/// fixtures cache.
struct RunContext: Sendable {
    /// The rows, identical for both engines.
    let dataset: Dataset
    /// A new empty directory on the benchmark disk, deleted after the run.
    let directory: URL
    /// Databases and stores built once per benchmark process and copied into `directory`.
    let fixtures: FixtureCache
    /// The machine limits measured at the start of this benchmark, if any.
    let limits: MachineLimits?

    /// The number of rows of each table (`--scale`).
    var scale: Int { dataset.scale }
}
