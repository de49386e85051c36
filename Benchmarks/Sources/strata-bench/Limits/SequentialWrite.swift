import Foundation

/// How fast the disk takes a large sequential write that must reach stable storage: the bound
/// for appending a big transaction to the log.
enum SequentialWrite {
    /// Writes `totalBytes` to a new file at `path` in `writeSize` writes, fsyncs once (or,
    /// with `syncEachWrite`, fdatasyncs after every write, as a `.always` log does for one
    /// transaction per write), and returns the median bytes per second over `repetitions`.
    /// The file is removed afterwards.
    static func measure(path: String, totalBytes: Int, writeSize: Int,
                        repetitions: Int, syncEachWrite: Bool = false) throws -> Double {
        // Incompressible bytes, in case the virtual disk compresses or deduplicates.
        var random = SplitMix64(seed: 0x5EC_0E47)
        let buffer = (0..<writeSize / 8).flatMap { _ in
            withUnsafeBytes(of: random.next()) { Array($0) }
        }
        var rates: [Double] = []
        for _ in 0..<max(repetitions, 1) {
            let file = try FileDescriptor(creating: path)
            let start = Stopwatch.now
            for _ in 0..<totalBytes / writeSize {
                try file.write(buffer)
                if syncEachWrite { try file.fdatasync() }
            }
            try file.fsync()
            let elapsed = Stopwatch.seconds(since: start)
            rates.append(Double(totalBytes) / elapsed)
            try? FileManager.default.removeItem(atPath: path)
        }
        return Statistics.median(rates)!
    }
}
