/// One immutable, consistent state of every entity's rows, as of a log sequence number.
///
/// Readers pin a version and read it without locks while writers build the next one;
/// versions share every chunk they have in common.
struct StoreVersion: Sendable {
    /// The LSN of the last transaction this version includes.
    let lsn: UInt64
    /// One table per entity, indexed like the store's layouts.
    var tables: [EntityTable]

    /// A version of `tables` as of `lsn`, their indexes brought up to date with their rows
    /// (every commit, batch request, replayed transaction and migration makes one).
    init(lsn: UInt64, tables: [EntityTable]) {
        self.lsn = lsn
        self.tables = tables
        for i in self.tables.indices where !self.tables[i].indexes.isEmpty { self.tables[i].refreshIndexes() }
    }

    /// Calls `body` with the table of the entity at `index`, in place: reading it through
    /// the array's subscript would copy the table's fields (and count each reference).
    func withTable<Result>(_ index: Int, _ body: (borrowing EntityTable) -> Result) -> Result {
        tables.withUnsafeBufferPointer { body($0.baseAddress.unsafelyUnwrapped[index]) }
    }
}
