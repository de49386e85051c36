import Foundation

/// The machine's physical limits, measured in the same run as the workloads so ratios can be
/// read against what the hardware allows.
struct MachineLimits: Sendable, Codable {
    /// LZ4 compression speed on store-like columns, in input bytes per second.
    var lz4CompressBytesPerSecond: Double
    /// LZ4 decompression speed on the same columns, in output bytes per second.
    var lz4DecompressBytesPerSecond: Double
    /// Uncompressed size ÷ compressed size for those columns.
    var lz4Ratio: Double
    /// The uncompressed size of the LZ4 sample.
    var lz4SampleBytes: Int
    /// Sequential write speed in 1 MiB writes with one fsync at the end, in bytes per second.
    var sequentialWriteFsyncBytesPerSecond: Double
    /// The number of bytes that probe wrote.
    var sequentialWriteBytes: Int
    /// The same writes with an fdatasync after each 1 MiB write, in bytes per second: the
    /// bound for appending one 1 MiB transaction per sync, as `.always` does.
    var sequentialWriteSyncEachBytesPerSecond: Double
    /// Median latency of one 4 KiB append followed by fdatasync, in seconds.
    var fdatasyncP50: Double
    /// 99th percentile of the same, in seconds.
    var fdatasyncP99: Double
    /// How many append + fdatasync pairs were timed.
    var fdatasyncCount: Int

    /// One line for the report.
    var summaryLine: String {
        "Machine limits: LZ4 compress \(fixed(lz4CompressBytesPerSecond / 1e6, digits: 0)) MB/s, "
            + "decompress \(fixed(lz4DecompressBytesPerSecond / 1e6, digits: 0)) MB/s "
            + "(ratio \(fixed(lz4Ratio, digits: 2)) on \(fixed(Double(lz4SampleBytes) / 1e6, digits: 1)) MB of to-do columns) · "
            + "sequential write + fsync \(fixed(sequentialWriteFsyncBytesPerSecond / 1e6, digits: 0)) MB/s "
            + "(fdatasync after each 1 MiB: \(fixed(sequentialWriteSyncEachBytesPerSecond / 1e6, digits: 0)) MB/s) · "
            + "4 KiB append + fdatasync p50 \(MetricUnit.seconds.format(fdatasyncP50)), "
            + "p99 \(MetricUnit.seconds.format(fdatasyncP99))"
    }

    /// Measures every limit, using files under `directory`.
    static func measure(dataset: Dataset, directory: URL, repetitions: Int) throws -> MachineLimits {
        let lz4 = LZ4Throughput.measure(items: dataset.todoItems, repetitions: repetitions)
        let sequential = try SequentialWrite.measure(
            path: directory.appendingPathComponent("sequential.bin").path,
            totalBytes: 256 << 20, writeSize: 1 << 20, repetitions: min(repetitions, 3))
        let syncEach = try SequentialWrite.measure(
            path: directory.appendingPathComponent("sequential-synced.bin").path,
            totalBytes: 256 << 20, writeSize: 1 << 20, repetitions: min(repetitions, 3),
            syncEachWrite: true)
        let sync = try FdatasyncLatency.measure(
            path: directory.appendingPathComponent("fdatasync.bin").path, count: 200)
        return MachineLimits(
            lz4CompressBytesPerSecond: lz4.compressBytesPerSecond,
            lz4DecompressBytesPerSecond: lz4.decompressBytesPerSecond,
            lz4Ratio: lz4.ratio,
            lz4SampleBytes: lz4.sampleBytes,
            sequentialWriteFsyncBytesPerSecond: sequential,
            sequentialWriteBytes: 256 << 20,
            sequentialWriteSyncEachBytesPerSecond: syncEach,
            fdatasyncP50: sync.p50,
            fdatasyncP99: sync.p99,
            fdatasyncCount: 200)
    }
}
