import Foundation

/// How a model property of type `Value` is stored: as an attribute (with its conversion to
/// and from ``AttributeValue``), or as a to-one or to-many relationship.
///
/// `@Model` makes one per persisted property (`static let _$kind_name = modelValueKind(T.self)`);
/// overload resolution on the property's type picks it, so a type Strata cannot store is a
/// compile-time error at the property.
public struct ModelValueKind<Value>: Sendable {
    /// What the property is in the schema.
    public enum Role: Sendable {
        /// An attribute of a type, optional or not.
        case attribute(AttributeType, isOptional: Bool)
        /// A to-one relationship to an entity (always optional: `T?`).
        case toOne(destination: String)
        /// A to-many relationship to an entity (`[T]`).
        case toMany(destination: String)
    }

    /// What the property is in the schema.
    public let role: Role
    /// The model class of a relationship's destination.
    let modelType: (any PersistentModel.Type)?
    /// What a read gives when there is no value to read.
    let placeholder: @Sendable () -> Value
    /// An attribute value as stored.
    let encode: @Sendable (Value) -> AttributeValue
    /// An attribute value from what is stored (`nil` when it does not convert).
    let decode: @Sendable (AttributeValue) -> Value?
    /// A relationship value's models.
    let models: @Sendable (Value) -> [AnyObject]
    /// A relationship value from models.
    let fromModels: @Sendable ([AnyObject]) -> Value

    init(role: Role, modelType: (any PersistentModel.Type)? = nil,
         placeholder: @escaping @Sendable () -> Value,
         encode: @escaping @Sendable (Value) -> AttributeValue = { _ in .null },
         decode: @escaping @Sendable (AttributeValue) -> Value? = { _ in nil },
         models: @escaping @Sendable (Value) -> [AnyObject] = { _ in [] },
         fromModels: @escaping @Sendable ([AnyObject]) -> Value) {
        self.role = role
        self.modelType = modelType
        self.placeholder = placeholder
        self.encode = encode
        self.decode = decode
        self.models = models
        self.fromModels = fromModels
    }

    /// An attribute kind from its conversions.
    static func attribute(_ type: AttributeType, optional: Bool, placeholder: @escaping @Sendable () -> Value,
                          encode: @escaping @Sendable (Value) -> AttributeValue,
                          decode: @escaping @Sendable (AttributeValue) -> Value?) -> Self {
        Self(role: .attribute(type, isOptional: optional), placeholder: placeholder, encode: encode, decode: decode,
             fromModels: { _ in placeholder() })
    }
}

/// The kind of a property of a plain stored type (`String`, `Int`, `Date`, … or an optional).
public func modelValueKind<T: PersistentAttributeValue>(_ type: T.Type) -> ModelValueKind<T> {
    .attribute(T.persistentAttributeType, optional: T.persistentIsOptional, placeholder: { T.persistentPlaceholder },
               encode: { $0.persistentValue }, decode: { T(persistentValue: $0) })
}

/// The kind of an enum property with a `String` or `Int` raw value: stored as its raw value.
public func modelValueKind<T: RawRepresentable & SendableMetatype>(_ type: T.Type) -> ModelValueKind<T>
where T.RawValue: PersistentAttributeValue {
    .attribute(T.RawValue.persistentAttributeType, optional: false,
               placeholder: { T(rawValue: T.RawValue.persistentPlaceholder) ?? ModelValueKind<T>.firstCase(T.self) },
               encode: { $0.rawValue.persistentValue },
               decode: { T.RawValue(persistentValue: $0).flatMap(T.init(rawValue:)) })
}

/// The kind of an optional enum property with a `String` or `Int` raw value.
public func modelValueKind<T: RawRepresentable & SendableMetatype>(_ type: T?.Type) -> ModelValueKind<T?>
where T.RawValue: PersistentAttributeValue {
    .attribute(T.RawValue.persistentAttributeType, optional: true, placeholder: { nil },
               encode: { $0?.rawValue.persistentValue ?? .null },
               decode: { $0.isNull ? .some(nil) : T.RawValue(persistentValue: $0).flatMap(T.init(rawValue:)).map { $0 } })
}

/// The kind of a `Codable` struct property: stored as binary, its JSON encoding.
@_disfavoredOverload
public func modelValueKind<T: Codable & SendableMetatype>(_ type: T.Type) -> ModelValueKind<T> {
    .attribute(.binary, optional: false, placeholder: { CodableCoding.placeholder(T.self) },
               encode: { CodableCoding.encode($0) }, decode: { CodableCoding.decode(T.self, $0) })
}

/// The kind of an optional `Codable` struct property.
@_disfavoredOverload
public func modelValueKind<T: Codable & SendableMetatype>(_ type: T?.Type) -> ModelValueKind<T?> {
    .attribute(.binary, optional: true, placeholder: { nil },
               encode: { $0.map { CodableCoding.encode($0) } ?? .null },
               decode: { $0.isNull ? .some(nil) : CodableCoding.decode(T.self, $0).map { $0 } })
}

/// The kind of a to-one relationship (`T?`, where `T` is a model).
public func modelValueKind<T: PersistentModel>(_ type: T?.Type) -> ModelValueKind<T?> {
    ModelValueKind(role: .toOne(destination: T.entityName), modelType: T.self, placeholder: { nil },
                   models: { $0.map { [$0] } ?? [] }, fromModels: { $0.first as? T })
}

/// The kind of a to-many relationship (`[T]`, where `T` is a model).
public func modelValueKind<T: PersistentModel>(_ type: [T].Type) -> ModelValueKind<[T]> {
    ModelValueKind(role: .toMany(destination: T.entityName), modelType: T.self, placeholder: { [] },
                   models: { $0 }, fromModels: { $0.compactMap { $0 as? T } })
}

extension ModelValueKind {
    /// The first case of a `CaseIterable` enum, as the placeholder of an enum whose raw
    /// placeholder is no case; other enums have none, and a read with nothing to read traps.
    static func firstCase<T>(_ type: T.Type) -> T {
        if let all = (T.self as? any CaseIterable.Type)?.allCases as? any Collection, let first = all.first as? T {
            return first
        }
        preconditionFailure("Strata: no value to read for a property of type \(T.self) (its object was deleted or its context is gone), and the type has no placeholder; make it CaseIterable or optional.")
    }
}

/// The JSON coding of `Codable` properties.
enum CodableCoding {
    static func encode<T: Encodable>(_ value: T) -> AttributeValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map(AttributeValue.binary) ?? .null
    }

    static func decode<T: Decodable>(_ type: T.Type, _ value: AttributeValue) -> T? {
        guard case .binary(let data) = value else { return nil }
        return try? JSONDecoder().decode(T.self, from: data)
    }

    static func placeholder<T: Decodable>(_ type: T.Type) -> T {
        if let empty = try? JSONDecoder().decode(T.self, from: Data("{}".utf8)) { return empty }
        preconditionFailure("Strata: no value to read for a property of type \(T.self) (its object was deleted or its context is gone); make it optional.")
    }
}
