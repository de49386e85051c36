import Foundation

extension TableIndex {
    /// `entries` in index order when every value is a string (no nil), `nil` otherwise.
    ///
    /// The strings' UTF-8 bytes are copied once into one buffer, and the entries' positions
    /// are sorted by comparing those bytes where they decide the order (``StringOrder``: ASCII
    /// and Latin-1 text), through ``StringOrder/compare(_:_:)`` on the strings otherwise; equal
    /// strings by primary key. Comparing the entries themselves retains and releases each
    /// string at every comparison and reads it wherever it lies on the heap: at ten million
    /// names that was most of the index's build.
    /// - Complexity: O(n log n) comparisons, O(total bytes) memory.
    static func sortedByString(_ entries: [IndexEntry]) -> [IndexEntry]? {
        let n = entries.count
        guard n > 1 else { return entries }
        var bytes: [UInt8] = []
        var starts: [Int] = []
        starts.reserveCapacity(n + 1)
        for entry in entries {
            guard case .string(let string) = entry.first else { return nil }
            starts.append(bytes.count)
            bytes.append(contentsOf: string.utf8)
        }
        starts.append(bytes.count)
        var order = Array(0..<n)
        bytes.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in
                entries.withUnsafeBufferPointer { entries in
                    func text(_ i: Int) -> UnsafeBufferPointer<UInt8> {
                        UnsafeBufferPointer(rebasing: bytes[starts[i]..<starts[i + 1]])
                    }
                    order.sort { i, j in
                        let result = StringOrder.compareBytes(text(i), text(j), normalized: false)
                            ?? Self.compareStrings(entries[i].first, entries[j].first)
                        if result != .orderedSame { return result == .orderedAscending }
                        return entries[i].primaryKey < entries[j].primaryKey
                    }
                }
            }
        }
        return order.map { entries[$0] }
    }

    /// Two string values in ``StringOrder``, for the pairs whose bytes do not decide.
    @inline(never)
    private static func compareStrings(_ a: AttributeValue, _ b: AttributeValue) -> ComparisonResult {
        guard case .string(let x) = a, case .string(let y) = b else { return IndexEntry.compare(a, b) }
        return StringOrder.compare(x, y)
    }
}
