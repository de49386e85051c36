extension PersistentStore {
    /// How a fetch of `request` runs on the newest saved state: which index, if any, finds
    /// its rows, and whether an index walk orders them (see <doc:FetchingAndPredicateSyntax>).
    /// `strata query --explain` prints it.
    ///
    /// For example:
    /// ```swift
    /// let request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "email == 'a@b.c'"))
    /// print(try store.fetchStrategy(request))   // rows: index (email), email in {"a@b.c"} …
    /// ```
    ///
    /// - Throws: what ``fetchRows(_:)`` throws, before any row is read.
    /// - Complexity: that of the fetch's row lookup (the matches are counted to choose the
    ///   order), including the build of an index this is the first use of.
    public func fetchStrategy(_ request: FetchRequest) throws(StrataError) -> FetchStrategy {
        let plan = try FetchPlan(request, store: self)
        let version = currentVersion
        let matches = plan.sort.isEmpty ? 0 : (plan.scan(version) ?? []).count
        return plan.strategy(version, matches: matches)
    }
}
