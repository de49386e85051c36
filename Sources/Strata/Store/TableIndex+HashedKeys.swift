/// An index's first values in a ``KeyHashTable``, for key probes: strings or integers, as the
/// probed attribute is.
///
/// Built by the first key probe through the index (``TableIndex/hashingKeys(as:)``), never
/// before: an index that nothing probes costs nothing more. From then on every change to the
/// index changes it too (``TableIndex/apply(removing:adding:basis:)``), so each version's
/// index has the table of its own entries.
enum HashedKeys: Sendable {
    /// The values of a string attribute.
    case strings(KeyHashTable<String>)
    /// The values of an integer attribute.
    case integers(KeyHashTable<Int64>)
    /// An index whose first values are not all of the probed kind: probes search the leaves.
    case unavailable

    /// What the table knows of `key`, or `nil` when it holds another kind of value.
    @inline(__always)
    func match(_ key: ProbeKey) -> KeyMatch? {
        switch (self, key) {
        case (.strings(let table), .string(let string)): return table.match(string)
        case (.integers(let table), .integer(let integer)): return table.match(integer)
        default: return nil
        }
    }

    /// The table of the first values of `index`'s entries (rows without a value are left
    /// out), in the kind of `key`; ``unavailable`` when an entry holds another kind.
    ///
    /// The entries are in index order, so equal values are neighbours: each run of them is
    /// added once, with its length, and the table is sized for the runs, not the entries. Ten
    /// million names of ten thousand distinct values hash ten thousand keys into a table of
    /// ten thousand slots (the entries of a string index built from its columns share one
    /// string per value, so finding a run's end compares references).
    /// - Complexity: O(n) in the entries, plus O(d) hashing of the d distinct values.
    init(_ index: TableIndex, as key: ProbeKey) {
        switch key {
        case .string:
            self = Self.table { Self.forEachString(in: index, $0) }.map(HashedKeys.strings) ?? .unavailable
        case .integer:
            self = Self.table { Self.forEachInteger(in: index, $0) }.map(HashedKeys.integers) ?? .unavailable
        }
    }

    /// The table of the keys `walk` visits (each with its entry's primary key, in index
    /// order), or `nil` when `walk` returns `false` (an entry of another kind). The walk runs
    /// twice: once to count the runs of equal keys, once to add them.
    private static func table<Key: KeyHashTableKey>(_ walk: ((Key, Int64) -> Void) -> Bool) -> KeyHashTable<Key>? {
        var runs = 0
        var last: Key?
        guard walk({ key, _ in
            if key != last {
                runs += 1
                last = key
            }
        }) else { return nil }
        var table = KeyHashTable<Key>(expected: runs)
        var run: (key: Key, count: UInt32, primaryKey: Int64)?
        _ = walk { key, primaryKey in
            if let current = run, current.key == key {
                run!.count += 1
                return
            }
            if let run { table.add(run.key, count: run.count, primaryKey: run.primaryKey) }
            run = (key, 1, primaryKey)
        }
        if let run { table.add(run.key, count: run.count, primaryKey: run.primaryKey) }
        return table
    }

    /// Calls `body` with each string first value of `index` and its primary key, in index
    /// order, skipping rows without a value; `false` when a value is of another kind.
    private static func forEachString(in index: TableIndex, _ body: (String, Int64) -> Void) -> Bool {
        for leaf in index.leaves {
            if case .strings(let values) = leaf.values {
                for (value, primaryKey) in zip(values, leaf.keys) { body(value, primaryKey) }
                continue
            }
            guard case .entries(let entries) = leaf.values else { return false }
            for entry in entries {
                switch entry.first {
                case .string(let string): body(string, entry.primaryKey)
                case .null: continue
                default: return false
                }
            }
        }
        return true
    }

    /// Calls `body` with each integer first value of `index` and its primary key, in index
    /// order, skipping rows without a value; `false` when a value is of another kind.
    private static func forEachInteger(in index: TableIndex, _ body: (Int64, Int64) -> Void) -> Bool {
        for leaf in index.leaves {
            switch leaf.values {
            case .integers(let values):
                for (value, primaryKey) in zip(values, leaf.keys) { body(value, primaryKey) }
            case .entries(let entries):
                for entry in entries {
                    switch entry.first {
                    case .int(let value): body(value, entry.primaryKey)
                    case .null: continue
                    default: return false
                    }
                }
            case .numbers, .strings:
                return false
            }
        }
        return true
    }

    /// Brings the table in step with `removals` and `additions` (entries of `index`'s previous
    /// and current state, each in index order); returns `false` when it no longer matches them (the caller drops
    /// it, and the next probe builds it again). A key left with one entry of several gets that
    /// entry's primary key from `index`, whose leaves are already up to date.
    /// - Complexity: O(changes), plus O(log n) per key left with one entry of several.
    mutating func apply(removing removals: [IndexEntry], adding additions: [IndexEntry], index: TableIndex) -> Bool {
        switch self {
        case .strings(var table):
            // Let go of the table while it changes, so that nothing else holds its segments.
            self = .unavailable
            let applied = Self.apply(removals, additions, to: &table, index: index, probe: ProbeKey.string) {
                if case .string(let string) = $0 { return string }
                return nil
            }
            self = .strings(table)
            return applied
        case .integers(var table):
            self = .unavailable
            let applied = Self.apply(removals, additions, to: &table, index: index, probe: ProbeKey.integer) {
                if case .int(let value) = $0 { return value }
                return nil
            }
            self = .integers(table)
            return applied
        case .unavailable:
            return true
        }
    }

    /// ``apply(removing:adding:index:)`` on `table`, whose keys `key` reads from a value
    /// (`nil` for a value of another kind) and `probe` turns into the index's search key.
    private static func apply<Key>(_ removals: [IndexEntry], _ additions: [IndexEntry], to table: inout KeyHashTable<Key>,
                                   index: TableIndex, probe: (Key) -> ProbeKey, key: (AttributeValue) -> Key?) -> Bool {
        var single: [Key] = []
        func add(_ entry: IndexEntry) -> Bool {
            if entry.first.isNull { return true }
            guard let value = key(entry.first) else { return false }
            table.add(value, primaryKey: entry.primaryKey)
            return true
        }
        // Both lists are in index order: a row whose entry is removed and added unchanged (an
        // update of other properties) is passed over in one walk instead of hashed twice.
        var a = 0
        for entry in removals {
            while a < additions.count, IndexEntry.precedes(additions[a], entry) {
                guard add(additions[a]) else { return false }
                a += 1
            }
            if a < additions.count, IndexEntry.same(additions[a], entry) {
                a += 1
                continue
            }
            if entry.first.isNull { continue }
            guard let value = key(entry.first), let left = table.remove(value) else { return false }
            if left { single.append(value) }
        }
        while a < additions.count {
            guard add(additions[a]) else { return false }
            a += 1
        }
        for value in single {
            if let keys = index.primaryKeys(firstEqualTo: probe(value), limit: 1), keys.count == 1 {
                table.record(value, primaryKey: keys[0])
            }
        }
        return true
    }
}
