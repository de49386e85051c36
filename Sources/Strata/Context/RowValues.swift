internal import StrataStorage

/// An object's stored property values as the object keeps them: its row as last read from
/// the store, or, for an object inserted in its context, its values as set so far.
///
/// A row read from the store is kept as its place in one immutable chunk of the version it
/// was read from, so firing a fault copies nothing: a value is decoded when it is read.
/// Published chunks never change, so the place stays valid for as long as it is held (it
/// keeps that chunk alive, never more). Setting a value first copies the row out.
///
/// It does not say where each property's column is: every object of an entity shares that
/// (``EntityLayout/columnAccess``), so the reader passes it, and an object holds no
/// reference to it (one count more to take and drop per object a fetch makes).
/// ``RowValues`` pairs a row with it for code that reads whole rows.
///
/// Not copyable, so that a read borrows the object's row where it is: a copyable row read
/// out of an object's stored property was copied first (its chunk retained and released
/// around every read) whenever the read called code the compiler could not see through.
/// ``copy()`` makes a copy where one is wanted.
enum ObjectRow: ~Copyable {
    /// Values held by the object itself, in layout order.
    case values([AttributeValue])
    /// Row `row` of `chunk`; while the row is a fault's hint, `hintEpoch` is the number of
    /// the version the fetch read (``ManagedObject/giveHint(_:in:)``), otherwise 0. Kept
    /// here, in the bytes beside a 32-bit row number, rather than in the object: the object
    /// is then 8 bytes smaller, a smaller malloc block.
    case stored(chunk: TableChunk, row: UInt32, hintEpoch: UInt32)

    /// No values (an empty array allocates nothing): what an object without a row holds.
    static var empty: ObjectRow { .values([]) }

    /// Row `row` of `chunk` (a chunk's rows are numbered in 32 bits).
    static func row(_ row: Int, of chunk: TableChunk) -> ObjectRow {
        .stored(chunk: chunk, row: UInt32(truncatingIfNeeded: row), hintEpoch: 0)
    }

    /// A copy of the row.
    func copy() -> ObjectRow {
        switch self {
        case .values(let values): return .values(values)
        case .stored(let chunk, let row, let epoch): return .stored(chunk: chunk, row: row, hintEpoch: epoch)
        }
    }

    /// The row, marked as a fault's hint from the fetch numbered `epoch`.
    consuming func hinted(_ epoch: UInt32) -> ObjectRow {
        switch consume self {
        case .values(let values): return .values(values)
        case .stored(let chunk, let row, _): return .stored(chunk: chunk, row: row, hintEpoch: epoch)
        }
    }

    /// The number of the fetch whose hint the row is (0 when it is none).
    var hintEpoch: UInt32 {
        switch self {
        case .values: return 0
        case .stored(_, _, let epoch): return epoch
        }
    }

    /// The value of the stored property at `property` (an index into the layout's
    /// properties), whose column is `access`.
    @inline(__always)
    func value(at property: Int, _ access: EntityLayout.ColumnAccess) -> AttributeValue {
        switch self {
        case .values(let values): return values[property]
        case .stored(let chunk, let row, _): return Self.storedValue(chunk, row: Int(row), access)
        }
    }

    /// Sets the value of the stored property at `property`; `columns` is where each
    /// property's column is, evaluated only when the row must first be copied out of its
    /// chunk (setting a value of an inserted object's row takes no count on the list).
    mutating func setValue(_ value: AttributeValue, at property: Int, columns: @autoclosure () -> [EntityLayout.ColumnAccess]) {
        // Consumed, so that `values` is the array's only reference and changes in place.
        switch consume self {
        case .values(var values):
            values[property] = value
            self = .values(values)
        case .stored(let chunk, let row, _):
            var values = Self.decode(chunk: chunk, row: Int(row), columns: columns())
            values[property] = value
            self = .values(values)
        }
    }

    /// Whether the value of any of `properties` is null, read in place; `access` gives a
    /// property's column.
    func hasNull(at properties: [Int], access: (Int) -> EntityLayout.ColumnAccess) -> Bool {
        switch self {
        case .values(let values):
            for property in properties where values[property].isNull { return true }
        case .stored(let chunk, let row, _):
            for property in properties where chunk.value(at: Int(row), access(property)).isNull { return true }
        }
        return false
    }

    /// The value at `row` of `chunk`'s column `access`, read without counting a reference to
    /// the chunk's decoded columns: the caller holds `chunk`, which holds them (set once,
    /// never replaced) for as long as it lives. A string is read from the column's buffers
    /// in place (``DecodedColumns/string(column:row:)``); another value through a pointer
    /// into their array (``ColumnChunk/value(in:at:type:)``), not copied out of it whole.
    @inline(__always)
    private static func storedValue(_ chunk: TableChunk, row: Int, _ access: EntityLayout.ColumnAccess) -> AttributeValue {
        chunk.withLoaded { decoded in
            if access.type == .string, let string = decoded.string(column: access.column, row: row) { return string }
            return decoded.columns.withUnsafeBufferPointer { columns in
                ColumnChunk.value(in: columns.baseAddress.unsafelyUnwrapped + access.column, at: row, type: access.type)
            }
        }
    }

    private static func decode(chunk: TableChunk, row: Int, columns: [EntityLayout.ColumnAccess]) -> [AttributeValue] {
        columns.map { chunk.value(at: row, $0) }
    }
}

/// A row (``ObjectRow``) with where each of its properties' columns is: what code that reads
/// or compares whole rows (saves, merges, conflicts, uniqueness) passes around.
struct RowValues {
    /// Where the values are (``ObjectRow``'s cases, copyable).
    private enum Storage {
        case values([AttributeValue])
        case stored(chunk: TableChunk, row: Int)
    }

    private var storage: Storage
    /// Each property's column, in layout order (empty for values the row holds itself,
    /// which need none).
    let columns: [EntityLayout.ColumnAccess]

    /// Values held by the row itself, in layout order.
    init(_ values: [AttributeValue]) {
        storage = .values(values)
        columns = []
    }

    /// Row `row` of `chunk`, laid out as `columns` says.
    init(chunk: TableChunk, row: Int, columns: [EntityLayout.ColumnAccess]) {
        storage = .stored(chunk: chunk, row: row)
        self.columns = columns
    }

    /// A copy of `row`, laid out as `columns` says.
    init(_ row: borrowing ObjectRow, columns: [EntityLayout.ColumnAccess]) {
        switch row {
        case .values(let values): storage = .values(values)
        case .stored(let chunk, let row, _): storage = .stored(chunk: chunk, row: Int(row))
        }
        self.columns = columns
    }

    /// The row as an object keeps it.
    var row: ObjectRow {
        switch storage {
        case .values(let values): return .values(values)
        case .stored(let chunk, let row): return .row(row, of: chunk)
        }
    }

    /// The value of the stored property at `property` (an index into the layout's properties).
    subscript(property: Int) -> AttributeValue {
        get {
            switch storage {
            case .values(let values): return values[property]
            case .stored(let chunk, let row): return chunk.value(at: row, columns[property])
            }
        }
        set {
            var values = self.values
            values[property] = newValue
            storage = .values(values)
        }
    }

    /// Every stored property value, in layout order.
    var values: [AttributeValue] {
        switch storage {
        case .values(let values): return values
        case .stored(let chunk, let row): return columns.map { chunk.value(at: row, $0) }
        }
    }
}
