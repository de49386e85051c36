internal import StrataStorage

/// A number a compact index leaf holds (``IndexLeaf/Values``): an integer (or to-one key), or
/// the value of a date or a double.
protocol IndexNumber: BitwiseCopyable {
    /// The number's place in the order of unsigned integers (``IndexPairSort/sortable(_:)``).
    var sortableBits: UInt64 { get }
    /// Whether the number has no place in the order (a NaN).
    var isUnordered: Bool { get }
    /// A column's values when they are numbers of this type.
    static func values(of column: ColumnValues) -> [Self]?
    /// Whether the gather notes the low bits that are zero in every value
    /// (``IndexPairColumns/setBits``): for doubles (a date in whole seconds has 23), not for
    /// integers, whose gather loop it would slow by a third.
    static var lowZerosPay: Bool { get }
}

extension Int64: IndexNumber {
    @inline(__always) var sortableBits: UInt64 { IndexPairSort.sortable(self) }
    @inline(__always) var isUnordered: Bool { false }
    @inline(__always) static var lowZerosPay: Bool { false }

    static func values(of column: ColumnValues) -> [Int64]? {
        if case .int64(let values) = column { return values }
        return nil
    }
}

extension Double: IndexNumber {
    @inline(__always) var sortableBits: UInt64 { IndexPairSort.sortable(self) }
    @inline(__always) var isUnordered: Bool { isNaN }
    @inline(__always) static var lowZerosPay: Bool { true }

    static func values(of column: ColumnValues) -> [Double]? {
        if case .double(let values) = column { return values }
        return nil
    }
}

/// The value–key pairs of a single-number index (``TableIndex/numberLeaves(of:in:)``) as two
/// flat columns of known capacity: gathered from the table's chunks in row order, then put in
/// index order (value, then key) in place, then cut into leaves.
///
/// The gather notes what the sort needs as it goes (the smallest and largest value, whether
/// the keys ascend, whether a value is NaN), so that nothing reads the pairs a second time
/// before the sort's own passes.
struct IndexPairColumns<Value: IndexNumber>: ~Copyable {
    /// The values; the first ``count`` are set.
    private(set) var values: UnsafeMutableBufferPointer<Value>
    /// The primary keys beside them.
    private(set) var keys: UnsafeMutableBufferPointer<Int64>
    /// The pairs gathered.
    private(set) var count = 0
    /// The smallest and largest ``IndexNumber/sortableBits`` gathered.
    private(set) var low = UInt64.max, high = UInt64.min
    /// Every bit set in one of the ``IndexNumber/sortableBits`` gathered, when
    /// ``IndexNumber/lowZerosPay``: the sort skips the low bits that are zero in all of them
    /// (23 of a date in whole seconds).
    private(set) var setBits: UInt64 = 0
    /// Whether every row's key gathered (with or without a value) is greater than the one
    /// before.
    private(set) var ascending = true
    /// Whether a value gathered is NaN.
    private(set) var unordered = false
    /// The key of the last row gathered, with or without a value.
    private var lastKey: Int64?

    /// How many more pairs there is room for.
    var room: Int { keys.count - count }

    /// Room for `capacity` pairs.
    init(capacity: Int) {
        values = .allocate(capacity: max(capacity, 1))
        keys = .allocate(capacity: max(capacity, 1))
    }

    deinit {
        values.deallocate()
        keys.deallocate()
    }

    /// Appends the pairs of one chunk's rows whose `validity` is not `false` (all of them when
    /// it is `nil`), and calls `null` with the key of each other row, in row order.
    ///
    /// - Precondition: `values` and `keys` have the same count, and room is left for them.
    mutating func append(values source: UnsafeBufferPointer<Value>, keys sourceKeys: UnsafeBufferPointer<Int64>,
                         validity: [Bool]?, null: (Int64) -> Void) {
        let n = sourceKeys.count
        precondition(source.count == n && count + n <= keys.count, "index pairs overflow")
        guard n > 0 else { return }
        let valuesOut = values.baseAddress! + count, keysOut = keys.baseAddress! + count
        var low = self.low, high = self.high, setBits = self.setBits, unordered = false
        // Keys not greater than the one before, counted without a branch: row 0 counts once
        // against itself, and once more when it is not after the last key of the chunk before.
        var descents = lastKey.map { sourceKeys[0] <= $0 ? 1 : 0 } ?? 0
        var previous = sourceKeys[0]
        var written = 0
        if let validity {
            precondition(validity.count == n, "validity of another length")
            validity.withUnsafeBufferPointer { validity in
                for row in 0..<n {
                    let key = sourceKeys[row]
                    descents &+= key <= previous ? 1 : 0
                    previous = key
                    guard validity[row] else {
                        null(key)
                        continue
                    }
                    let value = source[row], bits = value.sortableBits
                    low = Swift.min(low, bits)
                    high = Swift.max(high, bits)
                    if Value.lowZerosPay { setBits |= bits }
                    unordered = unordered || value.isUnordered
                    valuesOut[written] = value
                    keysOut[written] = key
                    written += 1
                }
            }
        } else {
            for row in 0..<n {
                let key = sourceKeys[row], value = source[row], bits = value.sortableBits
                low = Swift.min(low, bits)
                high = Swift.max(high, bits)
                if Value.lowZerosPay { setBits |= bits }
                unordered = unordered || value.isUnordered
                descents &+= key <= previous ? 1 : 0
                previous = key
                valuesOut[row] = value
                keysOut[row] = key
            }
            written = n
        }
        lastKey = previous
        descents -= 1
        self.low = low
        self.high = high
        self.setBits = setBits
        self.unordered = self.unordered || unordered
        ascending = ascending && descents == 0
        count += written
    }

    /// Puts the pairs in index order: by value, then key (equal values, -0.0 and 0.0 among
    /// them, by key). A radix sort when the keys ascend (``IndexPairSort``), a comparison sort
    /// otherwise.
    ///
    /// - Precondition: no value is NaN.
    mutating func sort() {
        precondition(!unordered, "NaN in an index's pairs")
        guard count > 1 else { return }
        let values = UnsafeMutableBufferPointer(rebasing: self.values[0..<count])
        let keys = UnsafeMutableBufferPointer(rebasing: self.keys[0..<count])
        guard ascending else {
            var pairs = (0..<count).map { (value: values[$0], bits: values[$0].sortableBits, key: keys[$0]) }
            pairs.sort { $0.bits != $1.bits ? $0.bits < $1.bits : $0.key < $1.key }
            for (i, pair) in pairs.enumerated() {
                values[i] = pair.value
                keys[i] = pair.key
            }
            return
        }
        let spareValues = UnsafeMutableBufferPointer<Value>.allocate(capacity: count)
        let spareKeys = UnsafeMutableBufferPointer<Int64>.allocate(capacity: count)
        let inSpare = IndexPairSort.sort(values: values, keys: keys, spareValues: spareValues, spareKeys: spareKeys,
                                         low: low, high: high, zeros: Value.lowZerosPay ? setBits.trailingZeroBitCount : 0)
        if inSpare {
            // The sorted pairs are the spare columns: keep them, let the gathered ones go.
            self.values.deallocate()
            self.keys.deallocate()
            self.values = spareValues
            self.keys = spareKeys
        } else {
            spareValues.deallocate()
            spareKeys.deallocate()
        }
    }

    /// The pairs cut into leaves (``TableIndex/leafRanges(count:)``), each made by `leaf` from
    /// its keys and values.
    func leaves(_ leaf: (_ keys: [Int64], _ values: [Value]) -> IndexLeaf) -> [IndexLeaf] {
        TableIndex.leafRanges(count: count).map { range in
            leaf(Self.copy(keys, range), Self.copy(values, range))
        }
    }

    /// The elements of `buffer` in `range`, as an array.
    private static func copy<Element: BitwiseCopyable>(_ buffer: UnsafeMutableBufferPointer<Element>, _ range: Range<Int>) -> [Element] {
        [Element](unsafeUninitializedCapacity: range.count) { target, initialized in
            target.baseAddress!.initialize(from: buffer.baseAddress! + range.lowerBound, count: range.count)
            initialized = range.count
        }
    }
}
