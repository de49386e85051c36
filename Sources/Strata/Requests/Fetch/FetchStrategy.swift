/// How a fetch finds its rows and orders them, for `strata query --explain` and tests.
public struct FetchStrategy: Sendable, Hashable, CustomStringConvertible {
    /// The index whose entries gave the candidate rows (property names, most significant
    /// first), or `nil` for a scan of every chunk the statistics do not rule out.
    public var lookupIndex: [String]?
    /// The constraint the index was (or would have been) searched with, such as
    /// `email in {"a@b.c"}` or `age in [100, 200]`.
    public var lookupConstraint: String?
    /// An index that could serve the constraint but was estimated to cost more than the scan.
    public var rejectedIndex: [String]?
    /// The number of entries the index holds for the constraint (the candidates it would
    /// give), when an index could serve it.
    public var estimatedCandidates: Int?
    /// The rows a scan would read: those of the chunks the statistics do not rule out.
    public var scannedRows: Int?
    /// The single-property index walked to order the rows, or `nil` when they were sorted
    /// (or need no order beyond primary keys).
    public var orderIndex: [String]?

    /// Two lines, such as `rows: index (email), email in {"a@b.c"}` and
    /// `order: index (createdAt) walked`, and a third with the planner's estimate when an
    /// index could serve the predicate, such as
    /// `estimate: 1 candidate from the index, 1000000 rows to scan`.
    public var description: String {
        var rows = lookupIndex.map { "rows: index (\($0.joined(separator: ", "))), \(lookupConstraint ?? "")" } ?? "rows: chunk scan"
        if let rejectedIndex {
            rows += " (index (\(rejectedIndex.joined(separator: ", "))) not used for \(lookupConstraint ?? ""))"
        }
        let order = orderIndex.map { "order: index (\($0.joined(separator: ", "))) walked" } ?? "order: sort (or primary key)"
        var lines = rows + "\n" + order
        if let estimatedCandidates, let scannedRows {
            lines += "\nestimate: \(estimatedCandidates) candidate\(estimatedCandidates == 1 ? "" : "s") from the index, \(scannedRows) row\(scannedRows == 1 ? "" : "s") to scan"
        }
        return lines
    }
}
