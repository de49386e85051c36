internal import StrataStorage

extension StoreInspector {
    /// Checks the object graph's invariants on the inspected state and adds a finding for
    /// each violation (at most 20 per check, then a count):
    /// - primary keys ascending and unique within each entity, and below the next key the
    ///   store will hand out;
    /// - row versions between 1 and the store's LSN;
    /// - required attributes set;
    /// - every to-one foreign key points at an existing row of the destination;
    /// - one-to-one pairs agree: when `a.r == b`, `b.inverse == a`.
    ///
    /// A chunk of the store's snapshot that fails its first read (an encrypted chunk that
    /// does not authenticate) is reported as the one finding of these checks, which cannot
    /// judge the placeholder rows it leaves.
    ///
    /// - Complexity: O(rows × to-one relationships × log rows).
    public func verifyInvariants(into report: inout VerificationReport) {
        let before = report
        checkInvariants(into: &report)
        if let damage = store.snapshotDamage.error {
            let storage = damage.cause as? StorageError
            report = before
            report.error(damage.message, file: storage?.file, offset: storage?.offset)
        }
    }

    private func checkInvariants(into report: inout VerificationReport) {
        let version = store.currentVersion
        let nextKeys = store.writer.withLock { $0.nextPrimaryKeys }
        var rowsChecked = 0
        for layout in store.layouts {
            let table = version.tables[layout.index]
            let name = layout.entity.name
            var problems = ProblemCounter(check: "\(name)", report: report)
            var previous: Int64?
            for chunk in table.chunks {
                let versions = chunk.versions
                for (row, key) in chunk.primaryKeys.enumerated() {
                    if let previous, key <= previous {
                        problems.add("\(name) primary key \(key) follows \(previous): keys are not ascending and unique.")
                    }
                    previous = key
                    if nextKeys.indices.contains(layout.index), key >= nextKeys[layout.index] {
                        problems.add("\(name) \(key) is at or above the next primary key the store will assign (\(nextKeys[layout.index])).")
                    }
                    if versions[row] < 1 || UInt64(versions[row]) > version.lsn {
                        problems.add("\(name) \(key) has row version \(versions[row]), outside 1…\(version.lsn).")
                    }
                    for property in layout.properties where property.type != nil && !property.isOptional {
                        if chunk.columns[property.column].value(at: row, type: property.type).isNull {
                            problems.add("\(name) \(key) has no value for the required attribute \(property.name).")
                        }
                    }
                    checkRelationships(of: layout, chunk: chunk, row: row, key: key, version: version, problems: &problems)
                }
                rowsChecked += chunk.count
            }
            report = problems.finish()
        }
        report.checks.append("invariants of \(rowsChecked) rows: key order, row versions, required values, foreign keys, one-to-one pairs")
    }

    private func checkRelationships(of layout: EntityLayout, chunk: TableChunk, row: Int, key: Int64,
                                    version: StoreVersion, problems: inout ProblemCounter) {
        for property in layout.properties where property.type == nil {
            guard case .int(let target) = chunk.columns[property.column].value(at: row, type: nil) else { continue }
            guard let destination = property.destination else { continue }
            let destinationLayout = store.layouts[destination]
            guard let location = version.tables[destination].locate(target) else {
                problems.add("\(layout.entity.name) \(key).\(property.name) points at \(destinationLayout.entity.name) \(target), which does not exist.")
                continue
            }
            let relationship = layout.entity.relationship(named: property.name)
            guard let inverseName = relationship?.inverse,
                  let inverse = destinationLayout.propertyIndex[inverseName] else { continue }
            let back = version.tables[destination].value(inverse, at: location)
            if back != .int(key) {
                problems.add("\(layout.entity.name) \(key).\(property.name) is \(destinationLayout.entity.name) \(target), but its \(inverseName) is \(back.isNull ? "nil" : "\(back)"), not \(key).")
            }
        }
    }
}

/// Collects the violations of one check, keeping the first 20 and counting the rest.
struct ProblemCounter {
    let check: String
    var report: VerificationReport
    private var count = 0

    init(check: String, report: VerificationReport) {
        self.check = check
        self.report = report
    }

    mutating func add(_ message: String) {
        count += 1
        if count <= 20 { report.error(message) }
    }

    func finish() -> VerificationReport {
        var result = report
        if count > 20 { result.error("\(check): \(count - 20) more violations not listed.") }
        return result
    }
}
