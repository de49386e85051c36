internal import StrataStorage

/// An object's stored property values: its row as last read from the store, or, for an
/// object inserted in its context, its values as set so far.
///
/// A row read from the store is kept as its place in one immutable chunk of the version it
/// was read from, so firing a fault copies nothing: a value is decoded when it is read.
/// Published chunks never change, so the place stays valid for as long as it is held (it
/// keeps that chunk alive, never more). Setting a value first copies the row out.
struct RowValues {
    private enum Storage {
        /// Values held by the object itself, in layout order.
        case values([AttributeValue])
        /// Row `row` of `chunk`; `columns` says where each property's column is.
        case stored(chunk: TableChunk, row: Int, columns: [EntityLayout.ColumnAccess])
    }

    private var storage: Storage

    /// Values held by the object, in layout order.
    init(_ values: [AttributeValue]) { storage = .values(values) }

    /// No values (an empty array allocates nothing): what an object without a row holds.
    static var empty: RowValues { RowValues([]) }

    /// Row `row` of `chunk`, laid out as `columns` says.
    init(chunk: TableChunk, row: Int, columns: [EntityLayout.ColumnAccess]) {
        storage = .stored(chunk: chunk, row: row, columns: columns)
    }

    /// The value of the stored property at `property` (an index into the layout's properties).
    subscript(property: Int) -> AttributeValue {
        get {
            switch storage {
            case .values(let values):
                return values[property]
            case .stored(let chunk, let row, let columns):
                return Self.storedValue(chunk, row: row, columns[property])
            }
        }
        set {
            switch storage {
            case .values(var values):
                // Empty the storage first so `values` is the array's only reference and
                // changes in place.
                storage = .values([])
                values[property] = newValue
                storage = .values(values)
            case .stored(let chunk, let row, let columns):
                var values = Self.decode(chunk: chunk, row: row, columns: columns)
                values[property] = newValue
                storage = .values(values)
            }
        }
    }

    /// Whether the value of any of `properties` is null, read in place.
    func hasNull(at properties: [Int]) -> Bool {
        switch storage {
        case .values(let values):
            for property in properties where values[property].isNull { return true }
        case .stored(let chunk, let row, let columns):
            for property in properties where chunk.value(at: row, columns[property]).isNull { return true }
        }
        return false
    }

    /// Every stored property value, in layout order.
    var values: [AttributeValue] {
        switch storage {
        case .values(let values): return values
        case .stored(let chunk, let row, let columns): return Self.decode(chunk: chunk, row: row, columns: columns)
        }
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
