import Foundation
internal import StrataStorage

/// Matches the rows of a string column against a list of ASCII values from their bytes,
/// without making a `String` of a row, for an upsert's pass over a table: an ASCII row
/// equals an ASCII value exactly when their bytes are equal (ASCII scalars have no other
/// canonically equivalent spelling), so a row's hash and, where the hash is a value's, its
/// bytes decide. A row with a non-ASCII byte is left undecided (it may still equal an ASCII
/// value under canonical equivalence: the Kelvin sign is "K"), and so is a null one.
///
/// The values' hashes are kept in an open-addressing table of twice their number or more (a
/// power of two, probed linearly from the hash's low bits), each beside the value's
/// position: a lookup is a few loads and, for a row whose hash is a value's, one comparison
/// of bytes.
struct ASCIIKeyMatcher {
    /// What ``match(_:)`` says of a row: no value (`ruledOut`), one that the caller must
    /// decide (`undecided`), or the position of the value it equals.
    static let ruledOut: Int32 = -1
    /// See ``ruledOut``.
    static let undecided: Int32 = -2

    /// The values' hashes; `0` marks an empty slot (a hash is never 0).
    private var hashes: [UInt64]
    /// The position, in the values given to `init`, of the value whose hash is in the same slot.
    private var positions: [Int32]
    /// Every value's UTF-8 bytes, concatenated; value `i`'s are `bytes[ends[i - 1] ..< ends[i]]`.
    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    private let mask: Int

    /// The matcher for `values` of a column of `type`, or `nil` when it would not hold (not
    /// strings, or a value that is not ASCII). Where values repeat, the first one's position
    /// is the one matched.
    init?(_ values: [AttributeValue], type: AttributeType?) {
        guard type == .string, values.count < Int(Int32.max) else { return nil }
        var size = 16
        while size < 2 * values.count { size *= 2 }
        hashes = [UInt64](repeating: 0, count: size)
        positions = [Int32](repeating: 0, count: size)
        mask = size - 1
        ends.reserveCapacity(values.count)
        for (position, value) in values.enumerated() {
            guard case .string(var string) = value else { return nil }
            let start = bytes.count
            let hash: UInt64? = string.withUTF8 { utf8 in
                bytes.append(contentsOf: utf8)
                return Self.hash(UnsafeRawBufferPointer(utf8))
            }
            ends.append(bytes.count)
            guard let hash else { return nil }
            var slot = Int(truncatingIfNeeded: hash) & mask
            var repeated = false
            while hashes[slot] != 0 {
                if hashes[slot] == hash, valueBytes(Int(positions[slot])).elementsEqual(bytes[start...]) {
                    repeated = true
                    break
                }
                slot = (slot + 1) & mask
            }
            if !repeated {
                hashes[slot] = hash
                positions[slot] = Int32(position)
            }
        }
    }

    /// Value `position`'s bytes.
    private func valueBytes(_ position: Int) -> ArraySlice<UInt8> {
        bytes[(position == 0 ? 0 : ends[position - 1]) ..< ends[position]]
    }

    /// A hash of `bytes` (never 0), eight bytes at a time, or `nil` when a byte is not ASCII.
    /// The last word overlaps the one before it when the length is not a multiple of eight;
    /// the length is mixed in first, so that this still depends on the bytes alone.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        let count = bytes.count
        var hash = 0xCBF2_9CE4_8422_2325 ^ UInt64(truncatingIfNeeded: count)
        var any: UInt64 = 0
        @inline(__always) func mix(_ word: UInt64) {
            any |= word
            hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 32
        }
        if count >= 8 {
            var at = 0
            while at + 8 <= count {
                mix(bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                at += 8
            }
            if at < count { mix(bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) }
        } else if count > 0 {
            var word: UInt64 = 0
            for at in 0..<count { word |= UInt64(bytes[at]) << (8 * UInt64(at)) }
            mix(word)
        }
        guard any & 0x8080_8080_8080_8080 == 0 else { return nil }
        hash = (hash ^ (hash >> 29)) &* 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 31
        return max(hash, 1)
    }

    /// For each row of `column`: ``ruledOut`` when it certainly equals none of the values,
    /// the position of the value it equals, or ``undecided`` (a row that is not ASCII, a
    /// null one, or a column that does not hold bytes).
    func match(_ column: ColumnChunk) -> [Int32] {
        guard case .bytes(let b) = column.values else { return [Int32](repeating: Self.undecided, count: column.count) }
        var out = [Int32](repeating: Self.ruledOut, count: b.count)
        hashes.withUnsafeBufferPointer { hashes in
            positions.withUnsafeBufferPointer { positions in
                bytes.withUnsafeBytes { values in
                    ends.withUnsafeBufferPointer { ends in
                        b.data.withUnsafeBytes { data in
                            b.offsets.withUnsafeBufferPointer { offsets in
                                out.withUnsafeMutableBufferPointer { out in
                                    for row in 0..<out.count {
                                        let start = Int(offsets[row]), end = Int(offsets[row + 1])
                                        let rowBytes = UnsafeRawBufferPointer(rebasing: data[start..<end])
                                        guard let hash = Self.hash(rowBytes) else {
                                            out[row] = Self.undecided
                                            continue
                                        }
                                        var slot = Int(truncatingIfNeeded: hash) & mask
                                        while true {
                                            let stored = hashes[slot]
                                            if stored == 0 { break }
                                            if stored == hash {
                                                let position = Int(positions[slot])
                                                let from = position == 0 ? 0 : ends[position - 1]
                                                let value = UnsafeRawBufferPointer(rebasing: values[from..<ends[position]])
                                                if value.count == rowBytes.count,
                                                   value.count == 0 || memcmp(value.baseAddress!, rowBytes.baseAddress!, value.count) == 0 {
                                                    out[row] = Int32(position)
                                                    break
                                                }
                                            }
                                            slot = (slot + 1) & mask
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // A null row holds no bytes; it is left to the values' own comparison.
        if let validity = column.validity {
            for row in out.indices where !validity[row] { out[row] = Self.undecided }
        }
        return out
    }
}
