import SwiftSyntax

/// What a persisted property's declared type is, read from its syntax.
enum PropertyType: Equatable {
    /// A value stored as an attribute, or a to-one relationship (`T?` of a model): which
    /// one is decided by the compiler, by overload resolution on the type.
    case value(TypeSyntax)
    /// A to-many relationship `[T]`.
    case toMany(TypeSyntax)
    /// A type that cannot be stored, with what to write instead.
    case unsupported(reason: String)

    static func == (lhs: PropertyType, rhs: PropertyType) -> Bool {
        switch (lhs, rhs) {
        case (.value(let a), .value(let b)), (.toMany(let a), .toMany(let b)): return a.trimmedDescription == b.trimmedDescription
        case (.unsupported(let a), .unsupported(let b)): return a == b
        default: return false
        }
    }

    /// The standard-library and Foundation types stored as attributes.
    static let storedNames: Set<String> = [
        "Bool", "Int", "Int16", "Int32", "Int64", "Double", "Float", "String", "Date", "UUID", "Data", "URL", "Decimal",
    ]

    /// Types that look storable but are not, with the type to use instead.
    static let insteadOf: [String: String] = [
        "Int8": "Int16", "UInt": "Int64", "UInt8": "Int16", "UInt16": "Int32", "UInt32": "Int64", "UInt64": "Int64",
        "Float16": "Float", "Float80": "Double", "CGFloat": "Double", "Character": "String", "Substring": "String",
        "NSDate": "Date", "NSString": "String", "NSData": "Data", "NSURL": "URL", "NSUUID": "UUID", "NSDecimalNumber": "Decimal",
    ]

    /// Classifies `type`.
    static func classify(_ type: TypeSyntax) -> PropertyType {
        var inner = type
        var optional = false
        if let wrapped = type.as(OptionalTypeSyntax.self) {
            inner = wrapped.wrappedType
            optional = true
        } else if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional",
                  let argument = identifier.genericArgumentClause?.arguments.first?.argument.as(TypeSyntax.self) {
            inner = argument
            optional = true
        } else if type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return .unsupported(reason: "an implicitly unwrapped optional cannot be stored; write T? instead of T!")
        }
        if let array = inner.as(ArrayTypeSyntax.self) {
            return arrayKind(array.element, optional: optional)
        }
        if let identifier = inner.as(IdentifierTypeSyntax.self), identifier.name.text == "Array",
           let element = identifier.genericArgumentClause?.arguments.first?.argument.as(TypeSyntax.self) {
            return arrayKind(element, optional: optional)
        }
        if inner.is(DictionaryTypeSyntax.self) {
            return .unsupported(reason: "a dictionary cannot be stored; wrap it in a Codable struct (stored as binary), or model it as a relationship")
        }
        if inner.is(TupleTypeSyntax.self) {
            return .unsupported(reason: "a tuple cannot be stored; use a Codable struct (stored as binary)")
        }
        if inner.is(FunctionTypeSyntax.self) || inner.is(AttributedTypeSyntax.self) {
            return .unsupported(reason: "a closure cannot be stored; mark the property @Transient")
        }
        if inner.is(SomeOrAnyTypeSyntax.self) || inner.is(CompositionTypeSyntax.self) {
            return .unsupported(reason: "an existential or opaque type cannot be stored; use a concrete type, or mark the property @Transient")
        }
        let name = baseName(inner)
        if let replacement = insteadOf[name] {
            return .unsupported(reason: "\(name) is not a stored type; use \(replacement)")
        }
        if ["Set", "Dictionary"].contains(name) {
            return .unsupported(reason: "a \(name) cannot be stored; wrap it in a Codable struct (stored as binary), or model it as a relationship")
        }
        return .value(type.trimmed)
    }

    private static func arrayKind(_ element: TypeSyntax, optional: Bool) -> PropertyType {
        let name = baseName(element)
        if storedNames.contains(name) || insteadOf[name] != nil || element.is(OptionalTypeSyntax.self) {
            return .unsupported(reason: "an array of values cannot be stored; wrap it in a Codable struct (stored as binary), or make [T] a to-many relationship to a @Model class")
        }
        if optional {
            return .unsupported(reason: "a to-many relationship is never nil; write [\(element.trimmedDescription)] = [] instead of an optional array")
        }
        return .toMany(element.trimmed)
    }

    /// The last name of a type (`Foundation.Date` is `Date`).
    static func baseName(_ type: TypeSyntax) -> String {
        if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.name.text }
        if let member = type.as(MemberTypeSyntax.self) { return member.name.text }
        return type.trimmedDescription
    }
}
