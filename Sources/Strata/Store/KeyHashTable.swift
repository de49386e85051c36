/// A key a ``KeyHashTable`` holds: an index's first value, a string or an integer.
///
/// Its `==` and `hash(into:)` are the standard library's, which agree (equal keys hash
/// alike); for strings `==` is canonical equivalence, the predicate's `==` and
/// ``StringOrder``'s equality.
protocol KeyHashTableKey: Hashable, Sendable {
    /// The key an empty slot holds (allocates nothing).
    static var placeholder: Self { get }
}

extension String: KeyHashTableKey {
    static var placeholder: String { "" }
}

extension Int64: KeyHashTableKey {
    static var placeholder: Int64 { 0 }
}

/// What a ``KeyHashTable`` knows of a key.
enum KeyMatch: Equatable {
    /// No entry has it.
    case none
    /// One entry has it: its primary key.
    case one(Int64)
    /// Several entries have it, or one whose primary key the table does not know.
    case several
}

/// The distinct first values of an index, each with how many entries have it and, when one
/// does, its primary key: a point lookup by a key touches one or two slots instead of a
/// binary search over every leaf.
///
/// A value type like ``TableIndex``, whose versions it follows: the slots are cut into
/// segments (about √n of them, chosen by the hash's high bits), each an open-addressing table
/// with linear probing, and a change copies only the segments it touches. A version that
/// did not change a segment shares it.
///
/// A key with several entries (or whose one entry is no longer known after a removal) answers
/// ``KeyMatch/several``, and the index's own search finds them.
struct KeyHashTable<Key: KeyHashTableKey>: Sendable {
    /// One slot: empty when `count` is 0.
    struct Slot: Sendable {
        /// The hash's low 32 bits (they also place the slot in its segment).
        var tag: UInt32
        /// Entries whose first value is `key`.
        var count: UInt32
        /// The entry's primary key when `count` is 1, or ``KeyHashTable/unknown``.
        var primaryKey: Int64
        var key: Key

        static var empty: Slot { Slot(tag: 0, count: 0, primaryKey: KeyHashTable.unknown, key: .placeholder) }
    }

    /// The primary key of a slot whose one entry is not known (after a removal left one of
    /// two; ``TableIndex`` looks it up once its leaves are rewritten).
    static var unknown: Int64 { .min }

    /// Segments, each an open-addressing table of slots.
    private(set) var segments: [[Slot]]
    /// The occupied slots of each segment.
    private var occupied: [Int]
    /// The number of distinct keys.
    private(set) var count: Int

    /// A table sized for about `expected` distinct keys.
    init(expected: Int) {
        let segmentCount = Self.segmentCount(for: expected)
        let capacity = Self.capacity(for: expected / segmentCount + 1)
        segments = (0..<segmentCount).map { _ in Array(repeating: Slot.empty, count: capacity) }
        occupied = Array(repeating: 0, count: segmentCount)
        count = 0
    }

    /// About √n segments: a change copies one segment (√n slots) and the list of segments.
    static func segmentCount(for keys: Int) -> Int {
        guard keys > 64 else { return 1 }
        return Int(Double(keys).squareRoot().rounded(.up))
    }

    /// Past how many keys a table of `segments` segments is cut again into more (about √n
    /// each): four times the keys it was cut for, so each key is moved O(1) times on average.
    static func splitThreshold(segments: Int) -> Int {
        max(64, 4 * segments * segments)
    }

    /// Slots for `keys` keys at a load of about 0.6.
    static func capacity(for keys: Int) -> Int {
        max(8, keys * 5 / 3 + 1)
    }

    /// The hash of `key`: the standard library's, seeded per process.
    @inline(__always)
    static func hash(_ key: Key) -> UInt64 {
        UInt64(bitPattern: Int64(key.hashValue))
    }

    /// The segment of `hash`: its high 32 bits scaled to the segment count.
    @inline(__always)
    private func segment(of hash: UInt64) -> Int {
        Int(truncatingIfNeeded: ((hash >> 32) &* UInt64(segments.count)) >> 32)
    }

    /// The home slot of `tag` in a segment of `capacity` slots: the tag scaled to it.
    @inline(__always)
    private static func home(of tag: UInt32, capacity: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(tag) &* UInt64(capacity)) >> 32)
    }

    /// What the table knows of `key`.
    /// - Complexity: O(1) expected.
    func match(_ key: Key) -> KeyMatch {
        let hash = Self.hash(key), tag = UInt32(truncatingIfNeeded: hash)
        return segments[segment(of: hash)].withUnsafeBufferPointer { slots in
            var i = Self.home(of: tag, capacity: slots.count)
            while slots[i].count != 0 {
                if slots[i].tag == tag, slots[i].key == key {
                    return slots[i].count == 1 && slots[i].primaryKey != Self.unknown ? .one(slots[i].primaryKey) : .several
                }
                i += 1
                if i == slots.count { i = 0 }
            }
            return .none
        }
    }

    /// Every slot in use, for checks: the key, its entry count and its primary key.
    var slots: [(key: Key, count: Int, primaryKey: Int64)] {
        segments.flatMap { $0.filter { $0.count != 0 }.map { ($0.key, Int($0.count), $0.primaryKey) } }
    }

    // MARK: Changes

    /// Counts one more entry with `key` and primary key `primaryKey`.
    mutating func add(_ key: Key, primaryKey: Int64) {
        add(key, count: 1, primaryKey: primaryKey)
    }

    /// Counts `count` (at least 1) more entries with `key`; `primaryKey` is the entry's when
    /// `count` is 1.
    mutating func add(_ key: Key, count added: UInt32, primaryKey: Int64) {
        let hash = Self.hash(key), tag = UInt32(truncatingIfNeeded: hash), s = segment(of: hash)
        if (occupied[s] + 1) * 5 > segments[s].count * 4 { grow(s) }
        let inserted = segments[s].withUnsafeMutableBufferPointer { slots -> Bool in
            var i = Self.home(of: tag, capacity: slots.count)
            while slots[i].count != 0 {
                if slots[i].tag == tag, slots[i].key == key {
                    slots[i].count += added
                    slots[i].primaryKey = Self.unknown
                    return false
                }
                i += 1
                if i == slots.count { i = 0 }
            }
            slots[i] = Slot(tag: tag, count: added, primaryKey: added == 1 ? primaryKey : Self.unknown, key: key)
            return true
        }
        guard inserted else { return }
        occupied[s] += 1
        count += 1
        if count > Self.splitThreshold(segments: segments.count) { resplit() }
    }

    /// Counts one entry fewer with `key`; returns whether one entry of the key is left, whose
    /// primary key the table does not know (see ``record(_:primaryKey:)``), or `nil` when the
    /// table does not hold the key (it does not match the entries it was given).
    mutating func remove(_ key: Key) -> Bool? {
        let hash = Self.hash(key), tag = UInt32(truncatingIfNeeded: hash), s = segment(of: hash)
        let found = segments[s].withUnsafeMutableBufferPointer { slots -> (emptied: Int?, left: UInt32)? in
            var i = Self.home(of: tag, capacity: slots.count)
            while slots[i].count != 0 {
                if slots[i].tag == tag, slots[i].key == key {
                    slots[i].count -= 1
                    if slots[i].count == 0 { return (i, 0) }
                    // It had several entries, so the table knows none of theirs.
                    slots[i].primaryKey = Self.unknown
                    return (nil, slots[i].count)
                }
                i += 1
                if i == slots.count { i = 0 }
            }
            return nil
        }
        guard let (emptied, left) = found else { return nil }
        if let emptied {
            vacate(emptied, in: s)
            occupied[s] -= 1
            count -= 1
        }
        return left == 1
    }

    /// Records `primaryKey` as the one entry of `key` (a key with one entry).
    mutating func record(_ key: Key, primaryKey: Int64) {
        let hash = Self.hash(key), tag = UInt32(truncatingIfNeeded: hash), s = segment(of: hash)
        segments[s].withUnsafeMutableBufferPointer { slots in
            var i = Self.home(of: tag, capacity: slots.count)
            while slots[i].count != 0 {
                if slots[i].tag == tag, slots[i].key == key {
                    if slots[i].count == 1 { slots[i].primaryKey = primaryKey }
                    return
                }
                i += 1
                if i == slots.count { i = 0 }
            }
        }
    }

    /// Empties slot `hole` of segment `s` and moves back the slots after it that linear
    /// probing had pushed past it, so that no search stops early (no tombstones).
    private mutating func vacate(_ hole: Int, in s: Int) {
        segments[s].withUnsafeMutableBufferPointer { slots in
            let capacity = slots.count
            var hole = hole, j = hole
            while true {
                j += 1
                if j == capacity { j = 0 }
                if slots[j].count == 0 { break }
                let home = Self.home(of: slots[j].tag, capacity: capacity)
                // The slot at j stays when its home is cyclically in (hole, j].
                let stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j)
                if stays { continue }
                slots[hole] = slots[j]
                hole = j
            }
            slots[hole] = .empty
        }
    }

    /// Doubles segment `s`'s slots (a load of about 0.4 after).
    private mutating func grow(_ s: Int) {
        let old = segments[s]
        var slots = Array(repeating: Slot.empty, count: Self.capacity(for: occupied[s] * 6 / 5 + 8))
        let capacity = slots.count
        for slot in old where slot.count != 0 {
            var i = Self.home(of: slot.tag, capacity: capacity)
            while slots[i].count != 0 {
                i += 1
                if i == capacity { i = 0 }
            }
            slots[i] = slot
        }
        segments[s] = slots
    }

    /// Cuts the table again into about √n segments, once it has outgrown its segments.
    private mutating func resplit() {
        var table = KeyHashTable(expected: count)
        for segment in segments {
            for slot in segment where slot.count != 0 { table.insert(slot) }
        }
        self = table
    }

    /// Puts `slot` (a key the table does not hold) in its segment, growing it when full.
    private mutating func insert(_ slot: Slot) {
        // The segment comes from the hash's high bits, which the slot does not keep.
        let s = segment(of: Self.hash(slot.key))
        if (occupied[s] + 1) * 5 > segments[s].count * 4 { grow(s) }
        segments[s].withUnsafeMutableBufferPointer { slots in
            var i = Self.home(of: slot.tag, capacity: slots.count)
            while slots[i].count != 0 {
                i += 1
                if i == slots.count { i = 0 }
            }
            slots[i] = slot
        }
        occupied[s] += 1
        count += 1
    }
}
