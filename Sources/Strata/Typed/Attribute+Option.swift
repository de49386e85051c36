extension Attribute {
    /// An option of `@Attribute(...)` in the typed API: what the attribute needs beyond its
    /// name and type.
    ///
    /// The options are validation rules and uniqueness (`.unique`); the options of schema
    /// evolution join them here as those features land, so
    /// `@Attribute(_ options: Attribute.Option..., originalName:)` keeps its shape.
    ///
    /// For example:
    /// ```swift
    /// @Attribute(.length(1...200)) var title: String
    /// @Attribute(.range(0...10)) var priority: Int16
    /// @Attribute(.unique) var email: String
    /// ```
    public struct Option: Sendable {
        /// The validation rule this option adds, for an attribute of a type (`nil`: none).
        let rule: (@Sendable (AttributeType) -> ValidationRule)?
        /// Whether the option makes the attribute unique.
        let isUnique: Bool

        init(isUnique: Bool = false, rule: (@Sendable (AttributeType) -> ValidationRule)?) {
            self.rule = rule
            self.isUnique = isUnique
        }

        init(_ rule: @escaping @Sendable (AttributeType) -> ValidationRule) {
            self.init(rule: rule)
        }

        /// No two objects may have the same value (SwiftData's `.unique`): the entity gets
        /// a uniqueness constraint on this attribute alone (see
        /// ``Entity/uniquenessConstraints``). `nil` values are exempt.
        public static var unique: Option { Option(isUnique: true, rule: nil) }

        /// A validation rule, as the schema builder's ``Attribute/rule(_:)``.
        public static func rule(_ rule: ValidationRule) -> Option { Option { _ in rule } }

        /// A length rule (characters for strings, bytes for data): `.length(1...200)`.
        public static func length(_ range: ClosedRange<Int>) -> Option {
            Option { _ in .length(min: range.lowerBound, max: range.upperBound) }
        }

        /// A minimum length: `.length(1...)`.
        public static func length(_ range: PartialRangeFrom<Int>) -> Option {
            Option { _ in .length(min: range.lowerBound, max: nil) }
        }

        /// An inclusive range, `.range(0...10)`; integer bounds on a `Double` attribute
        /// become doubles, as in the builder's ``Attribute/range(_:)-(ClosedRange<Bound>)``.
        public static func range<Bound: ValidationBound & Sendable>(_ range: ClosedRange<Bound>) -> Option {
            Option { .range(min: range.lowerBound.boundValue(for: $0), max: range.upperBound.boundValue(for: $0)) }
        }

        /// A regular expression the whole string must match.
        public static func pattern(_ pattern: String) -> Option { Option { _ in .pattern(pattern) } }
    }

    /// This attribute with the rules of `options` appended.
    func applying(_ options: [Option]) -> Attribute {
        options.reduce(self) { attribute, option in option.rule.map { attribute.rule($0(type)) } ?? attribute }
    }
}
