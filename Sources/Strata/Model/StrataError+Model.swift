extension StrataError.Code {
    /// A store was opened with a schema that differs from the one stored in it in a way that
    /// needs a migration; the message lists the differences.
    public static let schemaMismatch = Self(rawValue: "schemaMismatch")
}
