import StrataStorage
import Foundation

/// How fast Strata's LZ4 wrapper compresses and decompresses the store's own kind of data:
/// to-do columns encoded as bytes, in chunks of 65,536 rows as a snapshot would hold them.
enum LZ4Throughput {
    /// The result of ``measure(items:repetitions:)``.
    struct Result {
        var compressBytesPerSecond: Double
        var decompressBytesPerSecond: Double
        var ratio: Double
        var sampleBytes: Int
    }

    /// Rows per encoded chunk.
    static let rowsPerChunk = 65_536

    /// Encodes up to 1,000,000 of `items` as columns, then times compressing and
    /// decompressing every column of every chunk; returns the medians over `repetitions`.
    static func measure(items: [TodoItem], repetitions: Int) -> Result {
        let columns = encodeColumns(items.prefix(1_000_000))
        let sampleBytes = columns.reduce(0) { $0 + $1.count }
        var compressRates: [Double] = []
        var decompressRates: [Double] = []
        var compressedBytes = 0
        for _ in 0..<max(repetitions, 1) {
            let start = Stopwatch.now
            let compressed = columns.map { LZ4.compress($0)! }
            compressRates.append(Double(sampleBytes) / Stopwatch.seconds(since: start))
            compressedBytes = compressed.reduce(0) { $0 + $1.count }

            var outputs = columns.map { [UInt8](repeating: 0, count: $0.count) }
            let decompressStart = Stopwatch.now
            for index in compressed.indices {
                let ok = compressed[index].withUnsafeBytes { input in
                    outputs[index].withUnsafeMutableBytes { LZ4.decompress(input, into: $0) }
                }
                precondition(ok, "LZ4 round trip failed")
            }
            decompressRates.append(Double(sampleBytes) / Stopwatch.seconds(since: decompressStart))
            precondition(outputs == columns, "LZ4 round trip changed the data")
        }
        return Result(compressBytesPerSecond: Statistics.median(compressRates)!,
                      decompressBytesPerSecond: Statistics.median(decompressRates)!,
                      ratio: Double(sampleBytes) / Double(max(compressedBytes, 1)),
                      sampleBytes: sampleBytes)
    }

    /// Per chunk: name lengths (UInt16 LE), name bytes (UTF-8), createdAt (Int64 LE
    /// milliseconds), done (one byte each).
    static func encodeColumns(_ items: ArraySlice<TodoItem>) -> [[UInt8]] {
        var columns: [[UInt8]] = []
        var start = items.startIndex
        while start < items.endIndex {
            let chunk = items[start..<min(start + rowsPerChunk, items.endIndex)]
            var lengths: [UInt8] = [], names: [UInt8] = [], dates: [UInt8] = [], flags: [UInt8] = []
            for item in chunk {
                let utf8 = item.name.utf8
                withUnsafeBytes(of: UInt16(utf8.count).littleEndian) { lengths += $0 }
                names += utf8
                let millis = Int64((item.createdAt.timeIntervalSince1970 * 1000).rounded())
                withUnsafeBytes(of: millis.littleEndian) { dates += $0 }
                flags.append(item.done ? 1 : 0)
            }
            columns += [lengths, names, dates, flags]
            start = chunk.endIndex
        }
        return columns
    }
}
