public import Foundation

/// Non-generic property accessors for the common attribute types, which `@Model`'s getters
/// and setters call by overload resolution (a property of type `String` passes a
/// `ModelValueKind<String>`, and the non-generic overload wins over the generic one).
///
/// The generic `value(_:_:_:)` works for every
/// kind but runs unspecialized in the model's module: through the kind's closures and value
/// witnesses, about 700 instructions a read. These are specialized here, in the module
/// that knows the object's layout: a read of a stored `String` is the value lookup and
/// nothing else. Other types (enums, `Codable` structs, relationships) take the generic path.
/// The readers are `mutating` for the reason the generic one is: the getter passes the
/// model's backing in place instead of copying it.
extension ModelBacking {
    /// The value of a `Bool` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Bool>) -> Bool {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Bool` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Bool>, _ value: Bool) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Int` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int>) -> Int {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Int` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int>, _ value: Int) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Int64` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int64>) -> Int64 {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Int64` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int64>, _ value: Int64) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Int32` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int32>) -> Int32 {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Int32` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int32>, _ value: Int32) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Int16` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int16>) -> Int16 {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Int16` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int16>, _ value: Int16) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Double` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Double>) -> Double {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Double` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Double>, _ value: Double) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `String` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<String>) -> String {
        attributeValue(layout, index, kind)
    }

    /// Sets a `String` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<String>, _ value: String) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Date` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Date>) -> Date {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Date` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Date>, _ value: Date) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `UUID` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<UUID>) -> UUID {
        attributeValue(layout, index, kind)
    }

    /// Sets a `UUID` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<UUID>, _ value: UUID) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Bool?` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Bool?>) -> Bool? {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Bool?` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Bool?>, _ value: Bool?) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Int?` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int?>) -> Int? {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Int?` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int?>, _ value: Int?) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Int64?` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int64?>) -> Int64? {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Int64?` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int64?>, _ value: Int64?) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Int32?` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int32?>) -> Int32? {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Int32?` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int32?>, _ value: Int32?) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Int16?` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int16?>) -> Int16? {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Int16?` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Int16?>, _ value: Int16?) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Double?` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Double?>) -> Double? {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Double?` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Double?>, _ value: Double?) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `String?` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<String?>) -> String? {
        attributeValue(layout, index, kind)
    }

    /// Sets a `String?` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<String?>, _ value: String?) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `Date?` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Date?>) -> Date? {
        attributeValue(layout, index, kind)
    }

    /// Sets a `Date?` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Date?>, _ value: Date?) {
        setAttribute(layout, index, kind, value)
    }

    /// The value of a `UUID?` property (the generic `value(_:_:_:)` for this type).
    public mutating func value(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<UUID?>) -> UUID? {
        attributeValue(layout, index, kind)
    }

    /// Sets a `UUID?` property (the generic `setValue(_:_:_:_:)` for this type).
    public mutating func setValue(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<UUID?>, _ value: UUID?) {
        setAttribute(layout, index, kind, value)
    }

    /// A stored attribute's value, read straight from the object when it has one that
    /// converts, else by the generic path (placeholders, detached models).
    @inline(__always)
    func attributeValue<T: PersistentAttributeValue>(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<T>) -> T {
        if let object, let stored = layout.storedIndex[index], let value = try? object.currentValue(stored),
           let result = T(persistentValue: value) {
            return result
        }
        return genericValue(layout, index, kind)
    }

    /// Sets a stored attribute on the object, or keeps it until insertion.
    @inline(__always)
    mutating func setAttribute<T: PersistentAttributeValue>(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<T>, _ value: T) {
        guard let object else {
            keepDetached(layout, index, value.persistentValue)
            return
        }
        guard let context = object.contextReference, let stored = layout.storedIndex[index] else { return }
        do throws(StrataError) {
            try object.setPending(stored, value.persistentValue)
        } catch {
            context.deferModelError(error)
        }
    }
}
