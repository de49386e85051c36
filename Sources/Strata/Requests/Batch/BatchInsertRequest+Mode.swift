extension BatchInsertRequest {
    /// What a batch insert does with a row whose constrained values another row has.
    ///
    /// For example, an import that inserts new people and updates known ones by email:
    /// ```swift
    /// var request = BatchInsertRequest(entityName: "Person", objects: rows)
    /// request.mode = .upsert
    /// try store.execute(request)
    /// ```
    public enum Mode: Sendable, Hashable {
        /// Every row is a new object. A row whose constrained values another row has (stored
        /// or in the same request) refuses the whole request with `.constraintConflict`;
        /// nothing is written.
        case insert
        /// Match each row on the entity's first uniqueness constraint (see
        /// ``Entity/uniquenessConstraints``): a row whose values match a stored row updates
        /// that row, setting only the keys the row gives; any other row is inserted (missing
        /// keys take their defaults). Rows of the request with the same values are applied
        /// in order to the same object. A row with `nil` in a constrained property is always
        /// inserted. Still one transaction and one log record, without validation; a row
        /// that breaks another constraint refuses the request.
        case upsert
    }
}
