extension PersistentStore {
    /// How a fetch of `request` runs on the newest saved state: which index, if any, finds
    /// its rows, and whether an index walk orders them (see <doc:FetchingAndPredicateSyntax>).
    /// `strata query --explain` prints it.
    ///
    /// For example:
    /// ```swift
    /// let request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "email == 'a@b.c'"))
    /// print(try store.fetchStrategy(request))   // rows: index (email), email in {"a@b.c"} …
    ///                                           // plan: key probe of index (email), no row read
    /// ```
    ///
    /// - Throws: what ``fetchRows(_:)`` throws.
    /// - Complexity: that of the fetch's row lookup (the matches are counted to choose the
    ///   order), including the build of an index this is the first use of.
    public func fetchStrategy(_ request: FetchRequest) throws(StrataError) -> FetchStrategy {
        let plan = try FetchPlan(request, store: self)
        return try checkingDamage {
            let version = currentVersion
            let matches = plan.sort.isEmpty ? 0 : (plan.scan(version) ?? []).count
            var strategy = plan.strategy(version, matches: matches)
            if let probe = KeyProbe(request, store: self), probe.keys(version, options: options) != nil {
                // The probe reads the index whatever the planner estimated a scan would cost.
                strategy.probedIndex = probe.indexNames
                strategy.lookupIndex = probe.indexNames
                strategy.rejectedIndex = nil
            }
            return strategy
        }
    }
}
