import Foundation

/// How long one small durable append takes: the bound for a one-object `.always` save.
enum FdatasyncLatency {
    /// Appends 4 KiB to a new file at `path` and fdatasyncs, `count` times, and returns the
    /// latency percentiles in seconds. The file is removed afterwards.
    static func measure(path: String, count: Int) throws -> (p50: Double, p99: Double) {
        let page = [UInt8](repeating: 0xA5, count: 4096)
        let file = try FileDescriptor(creating: path)
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        for _ in 0..<count {
            let start = Stopwatch.now
            try file.write(page)
            try file.fdatasync()
            latencies.append(Stopwatch.seconds(since: start))
        }
        try? FileManager.default.removeItem(atPath: path)
        return (Statistics.percentile(50, of: latencies)!, Statistics.percentile(99, of: latencies)!)
    }
}
