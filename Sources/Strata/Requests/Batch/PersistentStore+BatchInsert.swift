extension PersistentStore {
    /// Runs a batch insert: every row gets a permanent ID and is written in one transaction.
    /// Validation rules are skipped; types are checked, unknown keys refused, missing keys
    /// take the attribute's default (a required attribute with neither value nor default is
    /// refused), and to-one keys must name existing objects. Uniqueness constraints hold:
    /// with ``BatchInsertRequest/Mode/upsert`` a row matching a stored row updates it.
    ///
    /// - Throws: `.unknownEntity`, `.unknownKey`, `.typeMismatch` naming the row index and
    ///   key; `.constraintConflict` (cause ``UniquenessConflicts``) when rows would share a
    ///   constrained value; `.misuse` for an upsert into an entity without uniqueness
    ///   constraints. Nothing is written then.
    /// - Complexity: O(rows) without constraints; O(rows × log n) with them. An upsert whose
    ///   constraint index no fetch has built yet finds its matches in one pass, O(n).
    public func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        let layout = try self.layout(named: request.entityName)
        let entity = validationSchema.entity(named: layout.entity.name) ?? layout.entity
        let defaults = layout.properties.map { entity.attribute(named: $0.name)?.defaultValue ?? .null }
        let upsert = request.mode == .upsert
        if upsert && layout.uniquenessConstraints.isEmpty {
            throw StrataError(.misuse, "An upsert batch insert into \(layout.entity.name) matches rows on its first uniqueness constraint, and it has none; declare one (Entity(\"\(layout.entity.name)\", uniquenessConstraints: [[...]])) or use mode .insert. Nothing was written.", entity: layout.entity.name)
        }
        // Every row's values go into one flat array (row `i` at `i × width`), which the
        // changeset takes whole as a run of rows (`Changeset.Inserts`): one allocation for the
        // request rather than one per row, no `Insert` per row, and one release at the end
        // rather than a deallocation per row. The run's keys follow from the first, known
        // under the writer lock.
        let width = layout.properties.count
        var flat: [AttributeValue] = []
        flat.reserveCapacity(request.count * width)
        // For an upsert: the properties each row gives (an update sets only those).
        var given = GivenProperties()
        // Every row names the same few keys: for a short property list comparing the names
        // (a short key compares as two words) is cheaper than hashing each key of each row.
        let names = layout.properties.count <= 8 ? layout.properties.map(\.name) : nil
        func property(_ key: String) -> Int? {
            if let names { return names.firstIndex(of: key) }
            return layout.propertyIndex[key]
        }
        // Read once rather than per row (each `Property` copied out of the layout retains its
        // name): the type of each property, and the attributes a row must give a value.
        let types = layout.properties.map(\.type)
        let required = layout.properties.indices.filter { layout.properties[$0].type != nil && !layout.properties[$0].isOptional }
        // The checks of one value and of one row. They only build errors: the rows are
        // written inline below, where the compiler sees every access to `flat` (a local
        // function that changed it would be checked for exclusive access at run time, on
        // every value).
        func fits(_ value: AttributeValue, _ property: Int) -> Bool {
            types[property].map { value.conforms(to: $0) } ?? (value.isNull || { if case .int = value { return true } else { return false } }())
        }
        func mismatch(_ value: AttributeValue, _ property: Int, key: String, row index: Int) -> StrataError {
            StrataError(.typeMismatch, "Row \(index) of the batch insert: \(layout.entity.name).\(key) is \(types[property]?.rawValue ?? "a to-one relationship (give the primary key as an integer)"); a \(value.kindName) value cannot be stored in it. Nothing was written.", entity: layout.entity.name, key: key)
        }
        func missing(_ property: Int, row index: Int) -> StrataError {
            let name = layout.properties[property].name
            return StrataError(.typeMismatch, "Row \(index) of the batch insert has no value for the required attribute \(layout.entity.name).\(name), which has no default. Nothing was written.", entity: layout.entity.name, key: name)
        }
        func unknown(_ key: String, _ row: String) -> StrataError {
            let suggestion = Schema.nearestName(to: key, among: layout.properties.map(\.name))
            return StrataError(.unknownKey, "\(row) of the batch insert has the key '\(key)', which \(layout.entity.name) does not have" + (suggestion.map { "; did you mean '\($0)'?" } ?? ".") + " Nothing was written.", entity: layout.entity.name, key: key)
        }
        if case .positional(let names, let count, let fill) = request.rows {
            // The names are resolved once; each row is then read by position.
            var positions: [Int] = []
            for name in names {
                guard let property = property(name) else { throw unknown(name, "The property list") }
                guard !positions.contains(property) else {
                    throw StrataError(.misuse, "The property list of the batch insert names '\(name)' twice. Nothing was written.", entity: layout.entity.name, key: name)
                }
                positions.append(property)
            }
            // Every stored property named, in layout order (and no upsert, which notes what each
            // row gives): a row is exactly its values, so they are moved into `flat` as they
            // are, each leaving a null behind for the next row's fill (no default to write
            // first, no copy of each value).
            let inOrder = !upsert && positions == Array(0..<width)
            var values = [AttributeValue](repeating: .null, count: names.count)
            for index in 0..<count {
                if !inOrder { for k in values.indices { values[k] = .null } }
                fill(index, &values)
                guard values.count == names.count else {
                    throw StrataError(.misuse, "Row \(index) of the batch insert has \(values.count) values for \(names.count) properties; fill must set values by position and keep their number. Nothing was written.", entity: layout.entity.name)
                }
                if inOrder {
                    for k in values.indices where !fits(values[k], k) { throw mismatch(values[k], k, key: names[k], row: index) }
                    for p in required where values[p].isNull { throw missing(p, row: index) }
                    for k in values.indices {
                        var moved = AttributeValue.null
                        swap(&moved, &values[k])
                        flat.append(consume moved)
                    }
                    continue
                }
                let base = flat.count
                for value in defaults { flat.append(value) }
                for k in values.indices {
                    let property = positions[k]
                    guard fits(values[k], property) else { throw mismatch(values[k], property, key: names[k], row: index) }
                    flat[base + property] = values[k]
                    if upsert { given.properties.append(property) }
                }
                if upsert { given.endRow() }
                for p in required where flat[base + p].isNull { throw missing(p, row: index) }
            }
        } else {
            try request.forEachObject { index, object in
                let base = flat.count
                for value in defaults { flat.append(value) }
                for (key, value) in object {
                    guard let property = property(key) else { throw unknown(key, "Row \(index)") }
                    let type = types[property]
                    let fits = type.map { value.conforms(to: $0) } ?? (value.isNull || { if case .int = value { return true } else { return false } }())
                    guard fits else { throw mismatch(value, property, key: key, row: index) }
                    flat[base + property] = value
                    if upsert { given.properties.append(property) }
                }
                if upsert { given.endRow() }
                for p in required where flat[base + p].isNull { throw missing(p, row: index) }
            }
        }
        // An upsert reads the run row by row.
        let rowCount = request.count
        var rowValues: [AttributeValue] = []
        swap(&rowValues, &flat)
        var inserted = KeyRanges(sortedKeys: [])
        var upserted: (inserted: [Int64], updated: [Int64]) = ([], [])
        let outcome = try commitTransaction(kind: .batchInsert, author: request.transactionAuthor) { head, lsn, nextKeys in
            guard rowCount > 0 else { return nil }
            let first = nextKeys[layout.index]
            let inserts = Changeset.Inserts(first: first, count: rowCount, width: width, values: rowValues)
            for (p, property) in layout.properties.enumerated() {
                guard let destination = property.destination else { continue }
                for index in 0..<rowCount {
                    if case .int(let target) = inserts.value(p, ofRow: index), head.tables[destination].locate(target) == nil {
                        throw StrataError(.typeMismatch, "Row \(index) of the batch insert: \(layout.entity.name).\(property.name) refers to \(layouts[destination].entity.name) \(target), which does not exist. Nothing was written.", entity: layout.entity.name, key: property.name)
                    }
                }
            }
            if upsert {
                return try buildUpsert(inserts.map(\.values), given: given, author: request.transactionAuthor,
                                       layout: layout, head: head, lsn: lsn,
                                       nextKeys: &nextKeys, result: &upserted)
            }
            var changes = Changeset()
            changes.entities[layout.index] = Changeset.EntityChanges(inserts: inserts)
            // A large insert's frame is encoded, compressed and checksummed on a worker while
            // the rows are appended to the table here.
            let frame = FramePreparation.ifWorthIt(changes, rows: inserts.count, kind: .batchInsert,
                                                   author: request.transactionAuthor, authored: historyLog != nil)
            var next = head
            try Self.apply(changes, to: &next, lsn: lsn, nextKeys: &nextKeys)
            let version = StoreVersion(lsn: lsn, tables: next.tables)
            try refuseUniquenessConflicts(changes, in: version)
            let keys = KeyRanges(first: first, count: Int64(inserts.count))
            inserted = keys
            return BuiltTransaction(next: version, payload: frame == nil ? ChangesetCodec.encode(changes) : [], frame: frame,
                                    inserted: objectIDSet([(layout.index, keys)]),
                                    history: [HistoryEntry.Group(type: .insert, entity: layout.entity.name, properties: [],
                                                                 keys: keys)])
        }
        if upsert {
            let ids = request.resultType == .objectIDs
                ? objectIDSet([(layout.index, KeyRanges(sortedKeys: Array(Set(upserted.inserted + upserted.updated)).sorted()))]) : nil
            return BatchResult(status: true, objectIDSet: ids,
                               count: request.resultType == .count ? upserted.inserted.count + upserted.updated.count : nil,
                               lsn: outcome?.0.lsn ?? 0)
        }
        return BatchResult(status: true, objectIDSet: request.resultType == .objectIDs ? objectIDSet([(layout.index, inserted)]) : nil,
                           count: request.resultType == .count ? inserted.count : nil, lsn: outcome?.0.lsn ?? 0)
    }
}
