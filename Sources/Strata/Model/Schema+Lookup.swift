extension Schema {
    /// The entity with this exact name.
    ///
    /// - Throws: `StrataError` `.unknownEntity`, suggesting the nearest entity name.
    public func existingEntity(named name: String) throws(StrataError) -> Entity {
        if let entity = entity(named: name) { return entity }
        throw StrataError(
            .unknownEntity,
            "the schema has no entity '\(name)'"
                + Entity.suggestion(for: name, among: entities.map(\.name)),
            entity: name)
    }

    /// The name among `candidates` closest to `name` (by edit distance, ignoring case), if
    /// it is close enough to be a likely typo; for "did you mean" messages.
    public static func nearestName(to name: String, among candidates: [String]) -> String? {
        NameDistance.nearest(to: name, among: candidates)
    }

    /// The name among `candidates` closest to `name` whatever the distance, for tools that
    /// always offer an alternative (the `strata` inspector): the shortest candidate that
    /// `name` abbreviates (a prefix, ignoring case), otherwise the one with the smallest edit
    /// distance (the first such one on a tie). `nil` only when `candidates` is empty.
    ///
    /// - Complexity: O(*n* · *m*²) for *n* candidates of length about *m*.
    public static func closestName(to name: String, among candidates: [String]) -> String? {
        NameDistance.closest(to: name, among: candidates)
    }
}

extension Entity {
    /// The attribute with this exact name.
    ///
    /// - Throws: `StrataError` `.unknownKey`, suggesting the nearest attribute name.
    public func existingAttribute(named key: String) throws(StrataError) -> Attribute {
        if let attribute = attribute(named: key) { return attribute }
        throw StrataError(
            .unknownKey,
            "\(name) has no attribute '\(key)'" + Self.suggestion(for: key, among: attributes.map(\.name)),
            entity: name, key: key)
    }

    /// The relationship with this exact name.
    ///
    /// - Throws: `StrataError` `.unknownKey`, suggesting the nearest relationship name.
    public func existingRelationship(named key: String) throws(StrataError) -> Relationship {
        if let relationship = relationship(named: key) { return relationship }
        throw StrataError(
            .unknownKey,
            "\(name) has no relationship '\(key)'"
                + Self.suggestion(for: key, among: relationships.map(\.name)),
            entity: name, key: key)
    }
}

/// Edit distance between names, for suggestions.
enum NameDistance {
    /// The closest candidate within a distance of about a third of the name's length.
    static func nearest(to name: String, among candidates: [String]) -> String? {
        let target = Array(name.lowercased())
        let limit = max(1, target.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = levenshtein(target, Array(candidate.lowercased()))
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// The shortest candidate that `name` is a prefix of, else the nearest by edit distance.
    static func closest(to name: String, among candidates: [String]) -> String? {
        let target = Array(name.lowercased())
        if !target.isEmpty, let completion = candidates
            .filter({ $0.lowercased().hasPrefix(String(target)) })
            .min(by: { $0.count < $1.count }) {
            return completion
        }
        return candidates.min { levenshtein(target, Array($0.lowercased())) < levenshtein(target, Array($1.lowercased())) }
    }

    /// The number of single-character insertions, deletions and substitutions from a to b.
    static func levenshtein(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
