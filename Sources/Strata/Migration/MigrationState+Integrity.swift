extension MigrationState {
    /// What breaks the new schema's rules after a custom stage, one line per property:
    /// required attributes or required to-one relationships without a value, and to-one
    /// relationships that point at no object (a deleted or never-inserted key). Empty when
    /// the state is whole.
    ///
    /// A key that already pointed at nothing in `baseline` (the same row, before the stage:
    /// a `noAction` delete rule allows that) is not the stage's doing and is not reported.
    ///
    /// - Complexity: O(rows × stored properties).
    func integrityProblems(baseline: MigrationState) -> [String] {
        var problems: [String] = []
        for layout in layouts {
            let table = tables[layout.index]
            for property in layout.properties {
                var empty = 0, dangling = 0
                var example: Int64?
                for chunk in table.chunks {
                    let column = chunk.columns[property.column]
                    if !property.isOptional, let validity = column.validity {
                        empty += validity.lazy.filter { !$0 }.count
                    }
                    guard property.type == nil, let destination = property.destination else { continue }
                    for row in 0..<chunk.count {
                        guard case .int(let key) = chunk.value(at: row, .init(column: property.column, type: nil)) else { continue }
                        if tables[destination].locate(key) == nil,
                           !baseline.pointsNowhere(entity: layout.index, property: property.name,
                                                   row: chunk.primaryKeys[row], key: key) {
                            dangling += 1
                            example = example ?? key
                        }
                    }
                }
                let what = property.type == nil ? "to-one relationship" : "attribute"
                if empty > 0 {
                    problems.append("required \(what) \(layout.entity.name).\(property.name) has no value in \(empty) rows")
                }
                if dangling > 0, let example {
                    problems.append("\(layout.entity.name).\(property.name) points at \(dangling) objects that do not exist (for example \(layouts[property.destination!].entity.name) #\(example)); delete those rows or point them elsewhere")
                }
            }
        }
        return problems
    }

    /// Whether row `row` of `entity` has to-one `property` set to `key` and no such
    /// destination row exists.
    private func pointsNowhere(entity: Int, property: String, row: Int64, key: Int64) -> Bool {
        let layout = layouts[entity]
        guard let p = layout.propertyIndex[property], let destination = layout.properties[p].destination,
              let at = tables[entity].locate(row),
              case .int(let stored) = tables[entity].chunks[at.chunk].value(at: at.row, layout.columnAccess[p]) else {
            return false
        }
        return stored == key && tables[destination].locate(key) == nil
    }
}
