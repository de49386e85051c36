extension PersistentStore {
    /// Runs a batch update: every matching row gets the new values, in one transaction.
    ///
    /// - Throws: `.unknownEntity`, `.unknownKey` (nearest key named), `.typeMismatch` (a
    ///   value of the wrong type, nil for a required attribute, a relationship key, or a
    ///   computed value that does not fit); `.constraintConflict` when the new values would
    ///   make rows share the values of a uniqueness constraint. Nothing is written then.
    /// - Complexity: O(rows of the entity) to match, O(matches) to update; the log record
    ///   holds the matched keys as ranges (a few bytes for contiguous keys).
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        let plan = try FetchPlan(FetchRequest(entityName: request.entityName, predicate: request.predicate), store: self)
        let layout = plan.layout
        let assignments = try request.propertiesToUpdate.sorted { $0.key < $1.key }.map { key, value in
            try resolve(key, value, layout: layout)
        }
        var matched = KeyRanges(sortedKeys: [])
        let outcome = try commitTransaction(kind: .batchUpdate, author: request.transactionAuthor) { head, lsn, _ in
            guard !assignments.isEmpty else { return nil }
            var next = head
            var editor = TableEditor(table: next.tables[layout.index])
            let ranges: KeyRanges
            if plan.bound == nil {
                // Every row: the keys come straight from the chunks, as runs.
                decodeInParallel(editor.table, touching: nil)
                ranges = KeyRanges(keysOf: editor.table.chunks)
                guard !ranges.runs.isEmpty else { return nil }
                try editor.bulkUpdateAll(assignments: assignments, version: lsn)
            } else {
                let keys = plan.matchingKeys(head)
                guard !keys.isEmpty else { return nil }
                decodeInParallel(editor.table, touching: keys)
                ranges = KeyRanges(sortedKeys: keys)
                try editor.bulkUpdate(keys, assignments: assignments, version: lsn)
            }
            next.tables[layout.index] = editor.table
            let version = StoreVersion(lsn: lsn, tables: next.tables)
            try refuseUniquenessConflicts(updating: ranges, of: layout, assignments: assignments, in: version)
            matched = ranges
            let record = BatchUpdateRecord(entity: layout.index, keys: ranges, assignments: assignments)
            // The updated IDs stay key ranges until an observer or a merging context reads them.
            return BuiltTransaction(next: version, payload: record.encoded(),
                                    updated: objectIDSet([(layout.index, ranges)]),
                                    history: historyLog == nil ? [] : HistoryEntry.groups(record, layouts: layouts))
        }
        return BatchResult(status: true,
                           objectIDSet: request.resultType == .objectIDs ? objectIDSet([(layout.index, matched)]) : nil,
                           count: request.resultType == .count ? matched.count : nil, lsn: outcome?.0.lsn ?? 0)
    }

    private func resolve(_ key: String, _ value: BatchValue, layout: EntityLayout) throws(StrataError) -> ResolvedAssignment {
        func attribute(_ name: String) throws(StrataError) -> (Int, AttributeType) {
            guard let index = layout.propertyIndex[name] else {
                if layout.entity.relationship(named: name) != nil {
                    throw StrataError(.typeMismatch, "\(layout.entity.name).\(name) is a relationship; a batch update sets attributes only.", entity: layout.entity.name, key: name)
                }
                let names = layout.entity.attributes.map(\.name)
                let suggestion = Schema.nearestName(to: name, among: names)
                throw StrataError(.unknownKey, "\(layout.entity.name) has no attribute named '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ".") + " Nothing was written.", entity: layout.entity.name, key: name)
            }
            guard let type = layout.properties[index].type else {
                throw StrataError(.typeMismatch, "\(layout.entity.name).\(name) is a relationship; a batch update sets attributes only.", entity: layout.entity.name, key: name)
            }
            return (index, type)
        }
        let (target, type) = try attribute(key)
        func mismatch(_ what: String) -> StrataError {
            StrataError(.typeMismatch, "\(layout.entity.name).\(key) is \(type.rawValue)\(layout.properties[target].isOptional ? "" : " and required"); \(what) cannot be stored in it. Nothing was written.", entity: layout.entity.name, key: key)
        }
        switch value {
        case .constant(let constant):
            guard constant.conforms(to: type) else { throw mismatch("a \(constant.kindName) value") }
            guard !constant.isNull || layout.properties[target].isOptional else { throw mismatch("nil") }
            return ResolvedAssignment(property: target, kind: .constant, source: target, value: constant)
        case .not(let source):
            let (from, sourceType) = try attribute(source)
            guard type == .bool, sourceType == .bool else { throw mismatch("!\(source) (a negation needs two bool attributes)") }
            return ResolvedAssignment(property: target, kind: .not, source: from, value: .null)
        case .add(let source, let amount):
            let (from, sourceType) = try attribute(source)
            let fits: Bool
            switch amount {
            case .int: fits = sourceType == type && type.isNumeric
            case .double: fits = sourceType == .double && type == .double
            default: fits = false
            }
            guard fits else { throw mismatch("\(source) + a \(amount.kindName)") }
            return ResolvedAssignment(property: target, kind: .add, source: from, value: amount)
        case .copy(let source):
            let (from, sourceType) = try attribute(source)
            guard sourceType == type || (sourceType.isInteger && type.isInteger) else { throw mismatch("the \(sourceType.rawValue) attribute \(source)") }
            return ResolvedAssignment(property: target, kind: .copy, source: from, value: .null)
        }
    }
}
