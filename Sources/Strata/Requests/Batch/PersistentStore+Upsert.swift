internal import StrataStorage

extension PersistentStore {
    /// The transaction of an upsert batch insert of `rows` (each with every stored property,
    /// defaults filled in; `given` lists the properties each row set), built against `head`
    /// under the writer lock: a row whose values of the entity's first uniqueness constraint
    /// match a stored row (or an earlier row of the request) updates it with its given
    /// properties; any other row is inserted. `result` receives the inserted keys and the
    /// keys of stored rows updated. A large upsert's frame (`author` its transaction's) is
    /// prepared on a worker while the changes are applied.
    func buildUpsert(_ rows: [Changeset.RowValues], given: GivenProperties, author: String?, layout: EntityLayout, head: StoreVersion, lsn: UInt64,
                     nextKeys: inout [Int64], result: inout (inserted: [Int64], updated: [Int64])) throws -> BuiltTransaction? {
        guard !rows.isEmpty else { return nil }
        let constraint = layout.uniquenessConstraints[0]
        var inserts: [Changeset.Insert] = []
        // Stored rows updated, in the order first met (`updateOrder`), and their new values,
        // merged row by row: the `width` slots of update `i` at `i × width` of
        // `updateValues`, nil where no row of the request gave the property.
        let width = layout.properties.count
        var updates: [Int64: Int] = Dictionary(minimumCapacity: rows.count)
        var updateOrder: [Int64] = []
        var updateValues: [AttributeValue?] = []
        var nextKey = nextKeys[layout.index]
        // Each row's constrained values (`nil` for a row with a nil one: it is exempt, as in
        // SQL, and always inserted), and the stored rows that hold any of them.
        let wanted = rows.map { ConstraintKey($0, constraint.properties) }
        // Doubles and dates compare in the index as `==` does not (NaN equals NaN there), so
        // a constraint over one is matched and checked through its index alone, as before.
        let byEquality = constraint.properties.allSatisfy {
            let type = layout.properties[$0].type
            return type != .double && type != .date
        }
        // The pass below reads every chunk: the ones not decoded yet are decoded on the
        // cores first, rather than one by one on the writer's thread as the pass meets them.
        if byEquality && !head.tables[layout.index].indexes[constraint.index].isBuilt {
            decodeInParallel(head.tables[layout.index], touching: nil)
        }
        let stored = head.withTable(layout.index) {
            Self.storedKeys(holding: wanted.compactMap { $0 }, of: constraint, in: $0, scanning: byEquality,
                            capacity: rows.count)
        }
        // Constrained values met so far: the stored rows holding wanted ones (`mapValues`
        // keeps the hash table, made with room for every row of the request: no rehash) and
        // the rows this request inserts, by position. One lookup per row finds either.
        var seen: [ConstraintKey: Target] = stored.mapValues { .stored($0) }
        for (position, row) in rows.enumerated() {
            guard let values = wanted[position] else {
                inserts.append(Changeset.Insert(primaryKey: nextKey, values: row))
                nextKey += 1
                continue
            }
            guard let target = seen[values] else {
                seen[values] = .inserted(inserts.count)
                inserts.append(Changeset.Insert(primaryKey: nextKey, values: row))
                nextKey += 1
                continue
            }
            switch target {
            case .stored(let key):
                let base: Int
                if let at = updates[key] {
                    base = at * width
                } else {
                    updates[key] = updateOrder.count
                    base = updateOrder.count * width
                    updateOrder.append(key)
                    updateValues.append(contentsOf: repeatElement(nil, count: width))
                }
                for property in given[position] { updateValues[base + property] = row[property] }
            case .inserted(let at):
                for property in given[position] { inserts[at].values[property] = row[property] }
            }
        }
        var changes = Changeset()
        changes.entities[layout.index] = Changeset.EntityChanges(
            inserts: inserts,
            updates: updateOrder.indices.map { at in
                // Sized once: `compactMap` would grow each update's array as it appends.
                var values: [(property: Int, value: AttributeValue)] = []
                values.reserveCapacity(width)
                for p in 0..<width { if let value = updateValues[at * width + p] { values.append((p, value)) } }
                return Changeset.Update(primaryKey: updateOrder[at], expectedVersion: 0, values: values)
            })
        let frame = FramePreparation.ifWorthIt(changes, rows: rows.count, kind: .batchInsert, author: author,
                                               authored: historyLog != nil)
        // The rows updated, in key order; their chunks are decoded on the cores before the
        // edit rewrites them (after the pass above, there is nothing left to decode).
        let updatedKeys = updateOrder.sorted()
        decodeInParallel(head.tables[layout.index], touching: updatedKeys)
        var next = head
        try Self.apply(changes, to: &next, lsn: lsn, nextKeys: &nextKeys)
        let version = StoreVersion(lsn: lsn, tables: next.tables)
        // The rows were matched on the first constraint: an update keeps its row's values
        // of it (equal ones), an insert has values no stored row and no earlier row of the
        // request has, so only the entity's other constraints can have been broken.
        try refuseUniquenessConflicts(changes, in: version, exempting: byEquality ? (entity: layout.index, constraint: 0) : nil)
        result = (inserts.map(\.primaryKey), updateOrder)
        return BuiltTransaction(next: version, payload: frame == nil ? ChangesetCodec.encode(changes) : [], frame: frame,
                                inserted: objectIDSet([(layout.index, KeyRanges(sortedKeys: inserts.map(\.primaryKey)))]),
                                updated: objectIDSet([(layout.index, KeyRanges(sortedKeys: updatedKeys))]),
                                history: HistoryEntry.groups(changes, layouts: layouts))
    }

    /// The keys of the stored rows of `table` holding each of `wanted`'s values of
    /// `constraint` (the lowest key where several do), by values. `wanted` may repeat values;
    /// the dictionary returned has room for `capacity` entries (at least), so that a caller
    /// can add that many without a rehash.
    ///
    /// From the constraint's index when a reader has built it (or `scanning` is false): a
    /// probe per value. Otherwise from one pass over the rows, and the index stays unbuilt:
    /// building it sorts every row, which costs several times the pass (and the next version
    /// would then bring it up to date with the upsert's changes too); a later fetch through
    /// it builds it, as after an open. Both find the rows whose values are `==` to the
    /// wanted ones, which for strings, integers, booleans, UUIDs and data is the index's
    /// equality; not for doubles and dates (NaN), whose callers pass `scanning: false`.
    /// - Complexity: O(wanted × log n) with a built index, O(n) without.
    static func storedKeys(holding wanted: [ConstraintKey], of constraint: (properties: [Int], index: Int),
                           in table: borrowing EntityTable, scanning: Bool, capacity: Int = 0) -> [ConstraintKey: Int64] {
        // Sized once (at most one stored row per wanted key) rather than grown by rehashing.
        var found: [ConstraintKey: Int64] = Dictionary(minimumCapacity: max(wanted.count, capacity))
        guard !wanted.isEmpty else { return found }
        let lazy = table.indexes[constraint.index]
        if lazy.isBuilt || !scanning {
            let index = lazy.index(for: table)
            for values in Set(wanted) {
                if let key = index.primaryKeys(equalTo: values.values).first { found[values] = key }
            }
            return found
        }
        let access = constraint.properties.map { table.layout.columnAccess[$0] }
        // For a constraint of several properties, the first values alone rule out most rows
        // without making an array for them (for one property, they are the wanted values).
        let single = access.count == 1
        let firsts: Set<AttributeValue> = single ? [] : Set(wanted.map(\.first))
        // With one property, a row the matcher pairs with a value is that value's row (the
        // matcher pairs it with the value's first position in `wanted`): its key goes to
        // `matched` by that position, with no `String` made and no hash of it taken; only the
        // rows it leaves undecided are compared as values, with a set of them made for that.
        let matcher = ASCIIKeyMatcher(wanted.map(\.first), type: access[0].type)
        var matched = [Int64?](repeating: nil, count: single && matcher != nil ? wanted.count : 0)
        var wantedSet: Set<ConstraintKey>?
        // Found in undecided rows (rare: every value ASCII, a row that is not), by values.
        var foundUndecided: [ConstraintKey: Int64] = [:]
        for chunk in table.chunks {
            let keys = chunk.primaryKeys
            let matches = matcher?.match(chunk.columns[access[0].column])
            for row in keys.indices {
                if let matches {
                    let match = matches[row]
                    if match == ASCIIKeyMatcher.ruledOut { continue }
                    if single, match >= 0 {
                        if matched[Int(match)] == nil { matched[Int(match)] = keys[row] }
                        continue
                    }
                }
                let first = chunk.value(at: row, access[0])
                let values: ConstraintKey
                if single {
                    values = .one(first)
                } else {
                    guard firsts.contains(first) else { continue }
                    values = .many([first] + access.dropFirst().map { chunk.value(at: row, $0) })
                }
                if wantedSet == nil { wantedSet = Set(wanted) }
                if foundUndecided[values] == nil, wantedSet.unsafelyUnwrapped.contains(values) { foundUndecided[values] = keys[row] }
            }
        }
        // Each matched value once (a position holds a key only for a value's first
        // position), then the ones found in undecided rows: a value may be in both (a
        // canonically equivalent row that is not ASCII), where the lowest key stands.
        for (position, key) in matched.enumerated() {
            if let key { found[wanted[position]] = key }
        }
        for (values, key) in foundUndecided {
            if let other = found[values], other < key { continue }
            found[values] = key
        }
        return found
    }

    /// Throws `.constraintConflict` when `changes`, applied in `version`, left two rows
    /// sharing a constrained value; `exempting` names a constraint of an entity that the
    /// caller guarantees (an upsert's matching constraint).
    func refuseUniquenessConflicts(_ changes: Changeset, in version: StoreVersion,
                                   exempting: (entity: Int, constraint: Int)? = nil) throws {
        let broken = uniquenessConflicts(changes, in: version, exempting: exempting)
        guard !broken.isEmpty else { return }
        throw UniquenessConflicts(conflicts: broken, totalCount: broken.count)
            .error("The batch insert would break a uniqueness constraint (IDs of new rows are the ones they would have had)",
                   advice: "Nothing was written. Remove the duplicates, or set the request's mode to .upsert.")
    }
}

extension PersistentStore {
    /// Throws `.constraintConflict` when a batch update of `keys` with `assignments`, applied
    /// in `version`, left two rows sharing a constrained value. Free when no assignment sets
    /// a constrained property.
    func refuseUniquenessConflicts(updating keys: KeyRanges, of layout: EntityLayout, assignments: [ResolvedAssignment],
                                   in version: StoreVersion) throws {
        let constrained = Set(layout.uniquenessConstraints.flatMap(\.properties))
        guard assignments.contains(where: { constrained.contains($0.property) }) else { return }
        let broken = version.withTable(layout.index) { Self.uniquenessConflicts(in: $0, keys: keys.keys, storeID: storeID) }
        guard !broken.isEmpty else { return }
        throw UniquenessConflicts(conflicts: broken, totalCount: broken.count)
            .error("The batch update would break a uniqueness constraint", advice: "Nothing was written. Narrow the predicate, or set the constrained attribute row by row.")
    }
}

/// The properties each row of a batch insert gives, for an upsert (an update sets only
/// those): one flat array for the request rather than an array per row.
struct GivenProperties {
    /// Every row's property indexes, row after row.
    var properties: [Int] = []
    /// Where each row's run of `properties` ends.
    private var ends: [Int] = []

    /// Ends the current row: the properties appended since the previous call are its own.
    mutating func endRow() { ends.append(properties.count) }

    /// The properties row `row` gives.
    subscript(row: Int) -> ArraySlice<Int> {
        properties[(row == 0 ? 0 : ends[row - 1]) ..< ends[row]]
    }
}

/// One row's values of a uniqueness constraint, as a dictionary key: the value itself for a
/// constraint of one property (no array per row), otherwise the array of them.
enum ConstraintKey: Hashable {
    case one(AttributeValue)
    case many([AttributeValue])

    /// The values of `properties` in `row`, or `nil` when one is null (such a row is exempt
    /// from the constraint, as in SQL).
    init?(_ row: Changeset.RowValues, _ properties: [Int]) {
        if properties.count == 1 {
            let value = row[properties[0]]
            if value.isNull { return nil }
            self = .one(value)
        } else {
            let values = properties.map { row[$0] }
            if values.contains(where: \.isNull) { return nil }
            self = .many(values)
        }
    }

    /// The values, in the constraint's order.
    var values: [AttributeValue] {
        switch self {
        case .one(let value): return [value]
        case .many(let values): return values
        }
    }

    /// The value of the constraint's first property.
    var first: AttributeValue {
        switch self {
        case .one(let value): return value
        case .many(let values): return values[0]
        }
    }
}

/// Where an upserted row goes: a stored row (by key) or an insert of the request (by position).
private enum Target {
    case stored(Int64)
    case inserted(Int)
}
