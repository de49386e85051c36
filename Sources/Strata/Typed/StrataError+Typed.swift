extension StrataError.Code {
    /// A `#Predicate` or `SortDescriptor` uses a construct the engine cannot run (the
    /// message names it and says what to write instead). Thrown at fetch time, before any
    /// row is read: a typed fetch never falls back to running the closure per object.
    public static let unsupportedPredicate = Self(rawValue: "unsupportedPredicate")
}
