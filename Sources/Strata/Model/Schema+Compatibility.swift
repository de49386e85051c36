extension Schema {
    /// Checks that this schema (the application's) can open a store whose stored schema is
    /// `stored`: no difference may require a migration. Differences in defaults, validation
    /// rules and delete rules are allowed, since they do not change what is stored.
    ///
    /// - Throws: `StrataError` `.schemaMismatch` listing every difference that needs a
    ///   migration, one per line.
    /// - Complexity: that of ``differences(from:)``.
    public func checkCompatible(withStored stored: Schema) throws(StrataError) {
        let blocking = differences(from: stored).filter(\.requiresMigration)
        guard !blocking.isEmpty else { return }
        var message = "the store's schema differs from the application's in \(blocking.count) "
            + (blocking.count == 1 ? "way that needs" : "ways that need")
            + " a migration (not supported yet); open the store with its own schema "
            + "(`strata schema STORE --json` prints it) or create a new store:"
        for difference in blocking { message += "\n- \(difference)" }
        let entities = Set(blocking.map(\.entity))
        throw StrataError(.schemaMismatch, message, entity: entities.count == 1 ? entities.first : nil)
    }
}
