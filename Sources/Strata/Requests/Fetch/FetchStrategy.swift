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
    /// The index that answers the fetch alone by a key probe, when the predicate is one `==`
    /// on its first property (a string or integer attribute, against a non-nil constant):
    /// its entries equal to the constant are the matches, so no row is read and no plan is
    /// made. `nil` when the fetch takes the general path.
    public var probedIndex: [String]?
    /// Indexes that could serve the fetch but were not built yet: the fetch scanned or
    /// sorted as it would without them, and each is being built on a background thread for
    /// the fetches after it (see ``PersistentStore/Options/buildsIndexesInBackground``).
    public var indexesBeingBuilt: [[String]] = []

    /// Two lines, such as `rows: index (email), email in {"a@b.c"}` and
    /// `order: index (createdAt) walked`, and a third with the planner's estimate when an
    /// index could serve the predicate, such as
    /// `estimate: 1 candidate from the index, 1000000 rows to scan`, and a last one when a
    /// key probe answers the fetch, such as `plan: key probe of index (email), no row read`,
    /// and one for each index being built, such as
    /// `building: index (age) in the background, not used until built`.
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
        if let probedIndex {
            lines += "\nplan: key probe of index (\(probedIndex.joined(separator: ", "))), no row read"
        }
        for index in indexesBeingBuilt {
            lines += "\nbuilding: index (\(index.joined(separator: ", "))) in the background, not used until built"
        }
        return lines
    }
}
