/// The violations behind a ``StrataError`` with code `.validation`, kept as the error's
/// ``StrataError/cause`` so code can inspect each one.
///
/// For example:
/// ```swift
/// do {
///     try context.save()
/// } catch let error as StrataError where error.code == .validation {
///     for violation in ValidationFailure(error)?.violations ?? [] {
///         print(violation.key, violation.rule)
///     }
/// }
/// ```
public struct ValidationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every broken rule, in the order they were found.
    public var violations: [ValidationViolation]

    /// Wraps violations.
    public init(_ violations: [ValidationViolation]) {
        self.violations = violations
    }

    /// Finds the violations in `error`: the error itself, or the cause of a `StrataError`.
    public init?(_ error: any Error) {
        if let failure = error as? ValidationFailure {
            self = failure
        } else if let strata = error as? StrataError, let failure = strata.cause as? ValidationFailure {
            self = failure
        } else {
            return nil
        }
    }

    /// One `StrataError` with code `.validation` whose message lists every violation (without
    /// values), with `entity` and `key` set when they are the same for all, and this failure
    /// as its cause.
    public var error: StrataError {
        let entities = Set(violations.map(\.entity))
        let keys = Set(violations.map(\.key))
        let count = violations.count
        var message = count == 1
            ? "1 validation rule is broken; fix the value and save again:"
            : "\(count) validation rules are broken; fix the values and save again:"
        for violation in violations {
            message += "\n- \(violation)"
        }
        return StrataError(
            .validation, message,
            entity: entities.count == 1 ? entities.first : nil,
            key: entities.count == 1 && keys.count == 1 ? keys.first : nil,
            cause: self)
    }

    /// `N validation violation(s)`; the details are in the enclosing error's message.
    public var description: String {
        violations.count == 1 ? "1 validation violation" : "\(violations.count) validation violations"
    }
}
