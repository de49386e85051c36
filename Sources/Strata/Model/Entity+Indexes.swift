extension Entity {
    /// The properties an index may list: attributes and to-one relationships.
    var indexableNames: [String] {
        attributes.map(\.name) + relationships.filter { !$0.isToMany }.map(\.name)
    }

    /// Problems with the declared indexes: an empty index, a name that is not an attribute
    /// or to-one relationship of the entity, a name listed twice in one index, or the same
    /// index declared twice.
    func indexProblems() -> [SchemaProblem] {
        propertyListProblems(indexes, noun: "index")
    }

    /// The same problems for the uniqueness constraints (a constraint is checked through an
    /// index, so it may list what an index may).
    func uniquenessConstraintProblems() -> [SchemaProblem] {
        propertyListProblems(uniquenessConstraints, noun: "uniqueness constraint")
    }

    /// Problems with lists of indexable property names (`noun` names what a list is).
    private func propertyListProblems(_ lists: [[String]], noun: String) -> [SchemaProblem] {
        var problems: [SchemaProblem] = []
        var seen: Set<[String]> = []
        let indexable = Set(indexableNames)
        for (position, index) in lists.enumerated() {
            let place = "\(noun) #\(position + 1) of entity '\(name)'"
            if index.isEmpty {
                problems.append(SchemaProblem(entity: name, message: "\(place) lists no properties; name at least one attribute or to-one relationship, or remove it"))
                continue
            }
            var inIndex: Set<String> = []
            for property in index {
                if !indexable.contains(property) {
                    let why = relationship(named: property) != nil
                        ? "is a to-many relationship, which has no value to index (the store already indexes its inverse)"
                        : "is not a property of \(name) (it has \(indexableNames.joined(separator: ", ")))"
                            + Entity.suggestion(for: property, among: indexableNames)
                    problems.append(SchemaProblem(entity: name, key: property, message: "\(place) lists '\(property)', which \(why); list attributes and to-one relationships only"))
                } else if !inIndex.insert(property).inserted {
                    problems.append(SchemaProblem(entity: name, key: property, message: "\(place) lists '\(property)' twice; list each property once"))
                }
            }
            if !seen.insert(index).inserted {
                problems.append(SchemaProblem(entity: name, message: "\(place) repeats the \(noun) [\(index.joined(separator: ", "))]; declare each \(noun) once"))
            }
        }
        return problems
    }
}
