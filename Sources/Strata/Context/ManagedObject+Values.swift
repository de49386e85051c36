public import Foundation

extension ManagedObject {
    /// The value of an attribute, or of a to-one relationship as `.int(primaryKey)` / `.null`.
    /// Fires the fault when needed.
    ///
    /// - Throws: `.unknownKey` naming the nearest key; `.objectNotFound` when the object was
    ///   deleted from the store; `.misuse` when used outside its context; `.corrupted` when
    ///   firing the fault finds a chunk of the store's snapshot that fails its first read
    ///   (the object stays a fault).
    public func value(forKey key: String) throws(StrataError) -> AttributeValue {
        let context = try requireUnmanagedContext()
        // The context is lent without a count for the read (see ``requireUnmanagedContext()``).
        // The body throws only `StrataError`s, which `_withUnsafeGuaranteedRef` rethrows
        // untyped.
        do {
            return try context._withUnsafeGuaranteedRef { context in try value(forKey: key, in: context) }
        } catch {
            throw error as! StrataError
        }
    }

    /// ``value(forKey:)`` once the object's context is known to be usable.
    @inline(__always)
    private func value(forKey key: String, in context: ObjectContext) throws(StrataError) -> AttributeValue {
        let property = try context.propertyIndex(key, in: self)
        if let change = pending[property] { return change }
        try fireFault(in: context)
        return committedValue(at: property)
    }

    /// Sets an attribute (type-checked against the schema), or a to-one relationship given
    /// as `.int(primaryKey)` / `.null` (prefer ``setObject(_:forKey:)``).
    ///
    /// - Throws: `.unknownKey`, `.typeMismatch` (wrong type, or nil for a required
    ///   attribute is allowed until save, where validation reports it), `.misuse`.
    public func setValue(_ value: AttributeValue, forKey key: String) throws(StrataError) {
        let context = try requireUnmanagedContext()
        // Lent without a count, as for a read (see ``requireUnmanagedContext()``): a set
        // calls no code outside the context (no observer runs before the save), so nothing
        // lets go of the context while it runs.
        do {
            try context._withUnsafeGuaranteedRef { context in try setValue(value, forKey: key, in: context) }
        } catch {
            throw error as! StrataError
        }
    }

    /// ``setValue(_:forKey:)`` once the object's context is known to be usable.
    @inline(__always)
    private func setValue(_ value: AttributeValue, forKey key: String, in context: ObjectContext) throws(StrataError) {
        let property = try context.propertyIndex(key, in: self)
        // The type from the context's flat column table: no count taken on the store, its
        // layouts or the layout's properties.
        let type = lifetime.columnAccess(layout: layoutIndex, property: property).type
        if let type, !value.conforms(to: type) {
            throw StrataError(.typeMismatch, "\(entityName).\(key) is \(type.rawValue); a \(value.kindName) value cannot be stored in it.", entity: entityName, key: key)
        }
        if type == nil {
            guard case .int = value, value.isNull == false else {
                if value.isNull { try setPending(property, .null, in: context); return }
                throw StrataError(.typeMismatch, "\(entityName).\(key) is a relationship; set it with setObject(_:forKey:).", entity: entityName, key: key)
            }
        }
        try setPending(property, value, in: context)
    }

    /// Several values at once (Core Data's `setValuesForKeys`).
    public func setValues(_ values: [String: AttributeValue]) throws(StrataError) {
        for (key, value) in values { try setValue(value, forKey: key) }
    }

    /// The properties changed since the last save (or since insertion), with their new values.
    public func changedValues() -> [String: AttributeValue] {
        guard let context = contextReference else { return [:] }
        let layout = context.store.layouts[layoutIndex]
        if lifecycle == .inserted {
            return Dictionary(uniqueKeysWithValues: layout.properties.indices.map { (layout.properties[$0].name, (try? currentValue($0)) ?? .null) })
        }
        return Dictionary(uniqueKeysWithValues: pending.map { (layout.properties[$0.key].name, $0.value) })
    }

    /// The values last read from the store for `keys` (all stored properties when `nil`).
    public func committedValues(forKeys keys: [String]? = nil) throws(StrataError) -> [String: AttributeValue] {
        let context = try requireContext()
        let layout = context.store.layouts[layoutIndex]
        if lifecycle == .inserted { return [:] }
        try fireFault()
        let wanted = try keys.map { list throws(StrataError) in try list.map { key throws(StrataError) in try context.propertyIndex(key, in: self) } }
            ?? Array(layout.properties.indices)
        return Dictionary(uniqueKeysWithValues: wanted.map { (layout.properties[$0].name, committed![$0]) })
    }

    // MARK: Typed getters

    /// A string attribute (`nil` when null). - Throws: `.typeMismatch` for another type.
    public func string(_ key: String) throws(StrataError) -> String? {
        try typed(key, "string") { if case .string(let v) = $0 { v } else { nil } }
    }
    /// An integer attribute of any width (`nil` when null).
    public func int(_ key: String) throws(StrataError) -> Int64? {
        try typed(key, "integer") { if case .int(let v) = $0 { v } else { nil } }
    }
    /// A double attribute (`nil` when null).
    public func double(_ key: String) throws(StrataError) -> Double? {
        try typed(key, "double") { if case .double(let v) = $0 { v } else { nil } }
    }
    /// A bool attribute (`nil` when null).
    public func bool(_ key: String) throws(StrataError) -> Bool? {
        try typed(key, "bool") { if case .bool(let v) = $0 { v } else { nil } }
    }
    /// A date attribute (`nil` when null).
    public func date(_ key: String) throws(StrataError) -> Date? {
        try typed(key, "date") { if case .date(let v) = $0 { v } else { nil } }
    }
    /// A UUID attribute (`nil` when null).
    public func uuid(_ key: String) throws(StrataError) -> UUID? {
        try typed(key, "uuid") { if case .uuid(let v) = $0 { v } else { nil } }
    }
    /// A binary attribute (`nil` when null).
    public func data(_ key: String) throws(StrataError) -> Data? {
        try typed(key, "binary") { if case .binary(let v) = $0 { v } else { nil } }
    }

    private func typed<T>(_ key: String, _ name: String, _ extract: (AttributeValue) -> T?) throws(StrataError) -> T? {
        let value = try value(forKey: key)
        if value.isNull { return nil }
        guard let result = extract(value) else {
            throw StrataError(.typeMismatch, "\(entityName).\(key) holds a \(value.kindName), not a \(name).", entity: entityName, key: key)
        }
        return result
    }

    // MARK: Internals

    /// The value of a stored property: the pending change, else the committed value.
    func currentValue(_ property: Int) throws(StrataError) -> AttributeValue {
        if let change = pending[property] { return change }
        try fireFault()
        return committedValue(at: property)
    }

    func setPending(_ property: Int, _ value: AttributeValue) throws(StrataError) {
        try setPending(property, value, in: try requireContext())
    }

    /// ``setPending(_:_:)`` for a caller that has just checked, with ``requireContext()``,
    /// that the object is usable and got its `context`.
    func setPending(_ property: Int, _ value: AttributeValue, in context: ObjectContext) throws(StrataError) {
        guard lifecycle != .deleted else {
            throw StrataError(.misuse, "\(self) was deleted; a deleted object cannot be changed.", entity: entityName)
        }
        if lifecycle == .persisted {
            try fireFault()
            if committedValue(at: property) == value { pending[property] = nil } else { pending[property] = value }
        } else if hasCommittedValues {
            // Inserted: no store row to diff against, so the value goes straight into the row
            // the save will write (no per-object dictionary).
            setCommittedValue(property, value)
        } else {
            pending[property] = value
        }
        context.noteChanged(self)
    }

    /// Loads the row from the store's newest version if the object is a fault.
    func fireFault() throws(StrataError) {
        guard !hasCommittedValues else { return }
        try fireFault(in: try requireContext())
    }

    /// ``fireFault()`` for a caller that has just checked, with ``requireContext()``, that the
    /// object is usable and got its `context` (one check and one retain of the context less
    /// per read).
    func fireFault(in context: ObjectContext) throws(StrataError) {
        guard !hasCommittedValues else { return }
        // A hint never holds a chunk's placeholder columns: the fetches that make them
        // (`FetchPlaces`) check the damage after their scan, which decoded every chunk they
        // point at, and a prefetch stops at the first chunk that fails (`loadPrefetched`).
        if takeHint(in: context) { return }
        guard let row = try context.readRow(of: self) else {
            throw StrataError(.objectNotFound, "\(entityName) \(objectID.primaryKey) no longer exists in the store (it was deleted); refetch, or use existingObject(with:) to check first.", entity: entityName)
        }
        committed = row.values
        committedVersion = row.version
    }
}
