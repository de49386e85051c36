internal import StrataStorage

/// An assignment of a batch update, resolved to property indexes.
struct ResolvedAssignment: Sendable, Equatable {
    enum Kind: UInt8, Sendable {
        case constant = 0, not = 1, add = 2, copy = 3
    }
    var property: Int
    var kind: Kind
    /// The source property (`not`, `add`, `copy`).
    var source: Int
    /// The constant (`constant`, `add`).
    var value: AttributeValue
}

/// The log record of a batch update: entity, keys as ranges, assignments. Replaying it
/// recomputes the same values from the same rows.
struct BatchUpdateRecord: Sendable, Equatable {
    var entity: Int
    var keys: KeyRanges
    var assignments: [ResolvedAssignment]

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        w.write(UInt32(entity))
        keys.encode(into: &w)
        w.write(UInt16(assignments.count))
        for a in assignments {
            w.write(UInt16(a.property))
            w.write(a.kind.rawValue)
            w.write(UInt16(a.source))
            ValueCodec.write(a.value, into: &w)
        }
        return w.bytes
    }

    init(entity: Int, keys: KeyRanges, assignments: [ResolvedAssignment]) {
        self.entity = entity
        self.keys = keys
        self.assignments = assignments
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        entity = Int(try r.readUInt32())
        keys = try KeyRanges(decoding: &r)
        let n = Int(try r.readUInt16())
        assignments = try (0..<n).map { _ in
            let property = Int(try r.readUInt16())
            guard let kind = ResolvedAssignment.Kind(rawValue: try r.readUInt8()) else { throw PayloadError("unknown assignment kind") }
            return ResolvedAssignment(property: property, kind: kind, source: Int(try r.readUInt16()), value: try ValueCodec.read(from: &r))
        }
        guard r.isAtEnd else { throw PayloadError("unexpected bytes after a batch update") }
    }
}

/// The log record of a batch delete: every row deleted (cascades included) and every
/// foreign key nullified because it pointed at a deleted row.
struct BatchDeleteRecord: Sendable, Equatable {
    var deletes: [Int: KeyRanges] = [:]
    /// (entity, property) → rows whose key is set to nil.
    var nullifications: [Int: [Int: KeyRanges]] = [:]

    static func == (a: BatchDeleteRecord, b: BatchDeleteRecord) -> Bool {
        a.deletes == b.deletes && a.nullifications == b.nullifications
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        w.write(UInt32(deletes.count))
        for (entity, keys) in deletes.sorted(by: { $0.key < $1.key }) {
            w.write(UInt32(entity))
            keys.encode(into: &w)
        }
        let flat = nullifications.flatMap { entity, byProperty in byProperty.map { (entity, $0.key, $0.value) } }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        w.write(UInt32(flat.count))
        for (entity, property, keys) in flat {
            w.write(UInt32(entity))
            w.write(UInt16(property))
            keys.encode(into: &w)
        }
        return w.bytes
    }

    init() {}

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        for _ in 0..<Int(try r.readUInt32()) {
            let entity = Int(try r.readUInt32())
            deletes[entity] = try KeyRanges(decoding: &r)
        }
        for _ in 0..<Int(try r.readUInt32()) {
            let entity = Int(try r.readUInt32())
            let property = Int(try r.readUInt16())
            nullifications[entity, default: [:]][property] = try KeyRanges(decoding: &r)
        }
        guard r.isAtEnd else { throw PayloadError("unexpected bytes after a batch delete") }
    }
}
