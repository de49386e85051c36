/// The error type of the object-graph layers: model, store, contexts and requests.
///
/// Every error carries an extensible ``Code`` to `catch` on, a message a person can act on
/// (naming the entity, key, file or position involved but never user data), and the
/// underlying cause when there is one.
///
/// For example:
/// ```swift
/// do {
///     try context.save()
/// } catch let error as StrataError where error.code == .validation {
///     print(error.message)
/// }
/// ```
public struct StrataError: Error, Sendable, CustomStringConvertible {
    /// A kind of failure. New codes can be added without breaking existing `catch` clauses.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, such as `"unknownKey"`.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// Lets a `catch` clause match on a code: `catch StrataError.Code.unknownKey { … }`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StrataError)?.code == code
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What failed and what to do about it.
    public var message: String
    /// The entity involved, when there is one.
    public var entity: String?
    /// The key (attribute or relationship name) involved, when there is one.
    public var key: String?
    /// The error that caused this one, when there is one.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, entity: String? = nil, key: String? = nil,
                cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.entity = entity
        self.key = key
        self.cause = cause
    }

    /// `"<code>: <message>"`, followed by the cause when there is one and the message does
    /// not already say it (a ``PredicateSyntaxError``'s position and caret lines are in the
    /// message).
    public var description: String {
        var text = "\(code): \(message)"
        if let cause, !(cause is PredicateSyntaxError) { text += " (cause: \(cause))" }
        return text
    }
}

extension StrataError.Code {
    /// An entity name that the schema does not define.
    public static let unknownEntity = Self(rawValue: "unknownEntity")
    /// An attribute or relationship name that the entity does not define.
    public static let unknownKey = Self(rawValue: "unknownKey")
    /// A value whose type does not fit the attribute, or operands that cannot be compared.
    public static let typeMismatch = Self(rawValue: "typeMismatch")
    /// A schema that is inconsistent (duplicate names, missing inverses, bad defaults…).
    public static let invalidSchema = Self(rawValue: "invalidSchema")
    /// One or more validation rules are broken; the message lists every one.
    public static let validation = Self(rawValue: "validation")
}
