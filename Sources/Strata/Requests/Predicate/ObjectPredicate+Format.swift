extension ObjectPredicate {
    /// Parses a predicate in Core Data's format syntax, substituting `arguments` for the
    /// `%@`, `%K`, `%d`, `%i` and `%f` specifiers in order.
    ///
    /// `$variables` stay in the predicate; fill them with ``substituting(_:)`` or use
    /// ``init(format:arguments:variables:)``. See ``predicateFormat`` for the grammar.
    ///
    /// For example:
    /// ```swift
    /// let p = try ObjectPredicate(format: "age >= %@ AND name BEGINSWITH[c] %@", 100, "a")
    /// let q = try ObjectPredicate(format: "%K BETWEEN %@", "age", [100, 200])
    /// ```
    /// - Throws: ``StrataError`` with code `.predicateSyntax` (the ``StrataError/cause`` is a
    ///   ``PredicateSyntaxError`` with the position) or `.predicateArgument` when the
    ///   arguments do not fit the specifiers.
    /// - Complexity: O(*n*) in the length of the format.
    public init(format: String, _ arguments: any PredicateArgumentConvertible...) throws(StrataError) {
        self = try PredicateParser.parse(format, arguments: arguments.map(\.predicateArgument), variables: nil)
    }

    /// Parses a predicate in Core Data's format syntax with an argument array and, optionally,
    /// values for its `$variables`.
    ///
    /// When `variables` is not `nil`, every `$name` in the format must be one of its keys
    /// (an unknown one is an error with its position); when it is `nil`, `$name`s stay in
    /// the predicate for ``substituting(_:)``.
    ///
    /// For example:
    /// ```swift
    /// let p = try ObjectPredicate(format: "name == %@ AND age > $min",
    ///                       arguments: ["Ada"], variables: ["min": 30])
    /// ```
    /// - Throws: ``StrataError`` with code `.predicateSyntax` or `.predicateArgument`.
    public init(format: String, arguments: [any PredicateArgumentConvertible],
                variables: [String: any PredicateArgumentConvertible]? = nil) throws(StrataError) {
        self = try PredicateParser.parse(format, arguments: arguments.map(\.predicateArgument),
                                         variables: variables?.mapValues(\.predicateArgument))
    }
}
