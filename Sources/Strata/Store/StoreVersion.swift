/// One immutable, consistent state of every entity's rows, as of a log sequence number.
///
/// Readers pin a version and read it without locks while writers build the next one;
/// versions share every chunk they have in common.
struct StoreVersion: Sendable {
    /// The LSN of the last transaction this version includes.
    let lsn: UInt64
    /// One table per entity, indexed like the store's layouts.
    var tables: [EntityTable]

    /// Calls `body` with the table of the entity at `index`, in place: reading it through
    /// the array's subscript would copy the table's fields (and count each reference).
    func withTable<Result>(_ index: Int, _ body: (borrowing EntityTable) -> Result) -> Result {
        tables.withUnsafeBufferPointer { body($0.baseAddress.unsafelyUnwrapped[index]) }
    }
}
