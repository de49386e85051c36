internal import StrataStorage

/// A sorted set of primary keys stored as runs: how batch records stay small (all million
/// keys of an entity are one run).
///
/// Keys none of which follows another (every other key, say) are kept as the sorted keys
/// themselves, each a run of one read through ``runs``: 8 bytes a key rather than 16, and the
/// array the caller already holds rather than a new one (a batch delete of the 5M even keys
/// of 10M rows would otherwise fill 80 MB of new pages with runs, and 40 MB more to list the
/// keys again). Both forms read, compare and encode alike.
struct KeyRanges: Sendable, Equatable {
    fileprivate enum Storage: Sendable {
        /// Runs of consecutive keys: (first key, length), ascending and not touching.
        case runs([(first: Int64, count: Int64)])
        /// Ascending keys, no two consecutive: each is a run of one.
        case isolated([Int64])
    }
    private var storage: Storage

    /// Runs of consecutive keys: (first key, length), ascending and not touching.
    var runs: Runs { Runs(storage: storage) }

    /// The runs, read in place from either form.
    struct Runs: RandomAccessCollection {
        fileprivate let storage: Storage

        /// The first run's position: 0.
        var startIndex: Int { 0 }
        /// Past the last run's position: the number of runs.
        var endIndex: Int {
            switch storage {
            case .runs(let runs): return runs.count
            case .isolated(let keys): return keys.count
            }
        }

        /// Run `position`.
        subscript(position: Int) -> (first: Int64, count: Int64) {
            switch storage {
            case .runs(let runs): return runs[position]
            case .isolated(let keys): return (keys[position], 1)
            }
        }
    }

    static func == (a: KeyRanges, b: KeyRanges) -> Bool {
        a.runs.count == b.runs.count && zip(a.runs, b.runs).allSatisfy { $0.first == $1.first && $0.count == $1.count }
    }

    /// The runs of `keys`, which must be ascending and distinct (kept as they are when no key
    /// follows another).
    init(sortedKeys keys: [Int64]) {
        guard var first = keys.first else { storage = .runs([]); return }
        // Count the runs first, so the array is allocated once, or not at all when every
        // run is one key.
        let breaks = keys.withUnsafeBufferPointer { keys in
            var breaks = 1
            for i in 1..<keys.count where keys[i] != keys[i - 1] &+ 1 { breaks += 1 }
            return breaks
        }
        if breaks == keys.count {
            storage = .isolated(keys)
            return
        }
        var runs: [(first: Int64, count: Int64)] = []
        var next = first
        runs.reserveCapacity(breaks)
        keys.withUnsafeBufferPointer { keys in
            for key in keys {
                if key != next {
                    runs.append((first, next - first))
                    first = key
                }
                next = key &+ 1
            }
        }
        runs.append((first, next - first))
        storage = .runs(runs)
    }

    /// The `count` keys from `first` on (none when `count` is 0).
    init(first: Int64, count: Int64) {
        storage = .runs(count > 0 ? [(first, count)] : [])
    }

    /// The keys of `chunks`, which hold ascending keys, one chunk after the other.
    init(keysOf chunks: [TableChunk]) {
        var runs: [(first: Int64, count: Int64)] = []
        var first: Int64 = 0, next: Int64 = 0, open = false
        for chunk in chunks {
            chunk.primaryKeys.withUnsafeBufferPointer { keys in
                for key in keys {
                    if !open || key != next {
                        if open { runs.append((first, next - first)) }
                        first = key
                        open = true
                    }
                    next = key &+ 1
                }
            }
        }
        if open { runs.append((first, next - first)) }
        storage = .runs(runs)
    }

    var count: Int {
        switch storage {
        case .runs(let runs): return Int(runs.reduce(0) { $0 + $1.count })
        case .isolated(let keys): return keys.count
        }
    }

    /// Whether `key` is in one of the runs.
    /// - Complexity: O(log runs).
    func contains(_ key: Int64) -> Bool {
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].first + runs[middle].count <= key { low = middle + 1 } else { high = middle }
        }
        return low < runs.count && runs[low].first <= key
    }

    /// Every key, ascending.
    var keys: [Int64] {
        if case .isolated(let keys) = storage { return keys }
        return [Int64](unsafeUninitializedCapacity: count) { out, n in
            for run in runs {
                for k in 0..<run.count {
                    out[n] = run.first + k
                    n += 1
                }
            }
        }
    }

    /// Varint-encoded (gap from the previous run's end, length) pairs.
    func encode(into w: inout ByteWriter) {
        w.write(UInt32(runs.count))
        // At most 10 bytes per varint, written into one buffer rather than byte by byte.
        let encoded = [UInt8](unsafeUninitializedCapacity: runs.count * 20) { out, n in
            func varint(_ value: UInt64) {
                var v = value
                while v >= 0x80 {
                    out[n] = UInt8(v & 0x7F) | 0x80
                    n += 1
                    v >>= 7
                }
                out[n] = UInt8(v)
                n += 1
            }
            var previousEnd: Int64 = 0
            for run in runs {
                varint(UInt64(bitPattern: run.first &- previousEnd))
                varint(UInt64(run.count))
                previousEnd = run.first + run.count
            }
        }
        w.write(encoded)
    }

    init(decoding r: inout ByteReader) throws {
        let n = Int(try r.readUInt32())
        guard n <= r.remaining / 2 else { throw PayloadError("impossible key range count") }
        var runs: [(Int64, Int64)] = []
        runs.reserveCapacity(n)
        var previousEnd: Int64 = 0
        for _ in 0..<n {
            let first = previousEnd &+ Int64(bitPattern: try Varint.read(from: &r))
            let count = Int64(bitPattern: try Varint.read(from: &r))
            guard count > 0, first >= previousEnd else { throw PayloadError("key ranges out of order") }
            let (end, overflow) = first.addingReportingOverflow(count)
            guard !overflow else { throw PayloadError("a key range runs past the largest key") }
            runs.append((first, count))
            previousEnd = end
        }
        storage = .runs(runs)
    }
}

/// LEB128 unsigned varints.
enum Varint {
    static func write(_ value: UInt64, into w: inout ByteWriter) {
        var v = value
        while v >= 0x80 {
            w.write(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        w.write(UInt8(v))
    }

    static func read(from r: inout ByteReader) throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try r.readUInt8()
            guard shift < 64 else { throw PayloadError("varint too long") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }
}
