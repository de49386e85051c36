/// One relationship of a prefetch path: where it leads, and how its destinations are found.
struct PrefetchStep {
    /// How the destination rows of the sources are recognised.
    enum Kind {
        /// A to-one relationship: its key is the source's stored property `property`.
        case toOne(property: Int)
        /// A to-many relationship: the destination's stored property `inverse` holds the
        /// source's key.
        case toMany(inverse: Int)
    }

    /// The destination entity's layout index.
    let destination: Int
    /// How the destinations are found.
    let kind: Kind
}

extension ObjectContext {
    /// The steps of each of `paths` (``FetchRequest/relationshipKeyPathsForPrefetching``)
    /// from entity `entity`, checked before anything is read.
    ///
    /// - Throws: `.unknownKey` naming the entity and the nearest relationship name for a step
    ///   that is not a relationship.
    func prefetchPlan(_ paths: [String], from entity: Int) throws(StrataError) -> [[PrefetchStep]] {
        var plan: [[PrefetchStep]] = []
        for path in paths {
            var current = entity
            var steps: [PrefetchStep] = []
            for part in path.split(separator: ".", omittingEmptySubsequences: false) {
                let name = String(part)
                let layout = store.layouts[current]
                guard let relationship = layout.entity.relationship(named: name) else {
                    let names = layout.entity.relationships.map(\.name)
                    let suggestion = Schema.nearestName(to: name, among: names).map { " Did you mean '\($0)'?" } ?? ""
                    throw StrataError(.unknownKey, "Cannot prefetch '\(path)': \(layout.entity.name) has no relationship named '\(name)'.\(suggestion) Its relationships are: \(names.isEmpty ? "none" : names.joined(separator: ", ")).",
                                      entity: layout.entity.name, key: name)
                }
                let destination = try store.layout(named: relationship.destination)
                if relationship.isToMany {
                    guard let inverse = destination.propertyIndex[relationship.inverse] else {
                        throw StrataError(.invalidSchema, "\(relationship.destination).\(relationship.inverse), the inverse of \(layout.entity.name).\(name), is not a to-one relationship.", entity: layout.entity.name, key: name)
                    }
                    steps.append(PrefetchStep(destination: destination.index, kind: .toMany(inverse: inverse)))
                } else if let property = layout.propertyIndex[name] {
                    steps.append(PrefetchStep(destination: destination.index, kind: .toOne(property: property)))
                }
                current = destination.index
            }
            plan.append(steps)
        }
        return plan
    }

    /// Loads the destination objects of `plan` for `objects`: each step reads its destination
    /// table once and loads every row that belongs to a source.
    ///
    /// Each result keeps the objects reached from it (``ManagedObject/prefetched``), so they
    /// stay registered as long as the result is held, whether by the fetched results or by a
    /// typed model. Objects of the results' own entity are not kept that way, so that no two
    /// objects can hold each other.
    func prefetch(_ plan: [[PrefetchStep]], of objects: [ManagedObject]) {
        guard let rootEntity = objects.first?.layoutIndex else { return }
        let version = store.currentVersion
        var holds = Array(repeating: [ManagedObject](), count: objects.count)
        for steps in plan {
            // Each source with the results (by position) it was reached from.
            var sources = objects.indices.map { (object: objects[$0], roots: [$0]) }
            for step in steps where !sources.isEmpty {
                sources = prefetch(step, of: sources, in: version)
                guard step.destination != rootEntity else { continue }
                for (object, roots) in sources { for root in roots { holds[root].append(object) } }
            }
        }
        for index in objects.indices where !holds[index].isEmpty {
            objects[index].prefetched = (objects[index].prefetched ?? []) + holds[index]
        }
    }

    /// One step: the destinations of `sources` in `version`, loaded, each with the results it
    /// was reached from.
    private func prefetch(_ step: PrefetchStep, of sources: [(object: ManagedObject, roots: [Int])],
                          in version: StoreVersion) -> [(object: ManagedObject, roots: [Int])] {
        let table = version.tables[step.destination]
        // The key each destination row is found by, and the results it belongs to.
        var wanted: [Int64: [Int]] = [:]
        var keyColumn: Int?
        switch step.kind {
        case .toOne(let property):
            for (source, roots) in sources where source.lifecycle != .deleted {
                if case .int(let key)? = try? source.currentValue(property) { wanted[key, default: []].append(contentsOf: roots) }
            }
        case .toMany(let inverse):
            for (source, roots) in sources where source.lifecycle == .persisted {
                wanted[source.primaryKey, default: []].append(contentsOf: roots)
            }
            keyColumn = table.layout.properties[inverse].column
        }
        guard !wanted.isEmpty else { return [] }
        let layout = store.layouts[step.destination]
        var loaded: [(object: ManagedObject, roots: [Int])] = []
        for chunk in table.chunks {
            let keys = chunk.primaryKeys
            // Decoded now if nobody had read it: a chunk that failed (``SnapshotDamage``) gives
            // no object its placeholder values; the next read of the store throws the damage.
            guard !store.snapshotDamage.isDamaged else { break }
            if let keyColumn {
                guard case .int64(let values) = chunk.columns[keyColumn].values else { continue }
                let validity = chunk.columns[keyColumn].validity
                for row in values.indices where validity?[row] ?? true {
                    guard let roots = wanted[values[row]] else { continue }
                    loaded.append((loadPrefetched(row, key: keys[row], of: chunk, layout: layout, lsn: version.lsn), roots))
                }
            } else {
                for row in keys.indices {
                    guard let roots = wanted[keys[row]] else { continue }
                    loaded.append((loadPrefetched(row, key: keys[row], of: chunk, layout: layout, lsn: version.lsn), roots))
                }
            }
        }
        return loaded
    }

    /// The object of row `row` of `chunk`, its values loaded from that row when it is a fault.
    private func loadPrefetched(_ row: Int, key: Int64, of chunk: TableChunk, layout: EntityLayout, lsn: UInt64) -> ManagedObject {
        let object = object(layoutIndex: layout.index, primaryKey: key)
        if object.holdsNoRow, object.lifecycle == .persisted {
            object.giveHint(FaultHint(row: .row(row, of: chunk),
                                      rowVersion: chunk.version(at: row), fetchedLSN: lsn), in: self)
            try? object.fireFault()
        }
        return object
    }
}
