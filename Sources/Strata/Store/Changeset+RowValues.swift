extension Changeset {
    /// The values of one inserted row (indexed like `EntityLayout.properties`): an array of
    /// its own, or its run of an array shared by many rows.
    ///
    /// A batch insert writes every row into one flat array (row `i` at
    /// `i × properties ..< (i + 1) × properties`) and hands each row a view of it: one
    /// allocation for the request instead of one per row, and one release of the values at
    /// the end instead of a deallocation per row. Writing to a row that shares its array
    /// first copies out its own values (never the whole array), so a row behaves as an
    /// `[AttributeValue]` would.
    struct RowValues: Sendable, Equatable, RandomAccessCollection, MutableCollection {
        /// The row's own values (`base == 0`, `count == storage.count`) or the shared array.
        private var storage: [AttributeValue]
        private var base: Int
        /// The number of values (the entity's stored properties).
        let count: Int

        /// A row holding `values`.
        init(_ values: [AttributeValue]) {
            storage = values
            base = 0
            count = values.count
        }

        /// The row of `count` values starting at `base` in `shared` (which it retains).
        init(shared: [AttributeValue], base: Int, count: Int) {
            precondition(base >= 0 && count >= 0 && base + count <= shared.count, "a row outside its shared values")
            storage = shared
            self.base = base
            self.count = count
        }

        var startIndex: Int { 0 }
        var endIndex: Int { count }

        subscript(position: Int) -> AttributeValue {
            get {
                precondition(position >= 0 && position < count, "property index \(position) outside a row of \(count)")
                return storage[base + position]
            }
            set {
                precondition(position >= 0 && position < count, "property index \(position) outside a row of \(count)")
                if base != 0 || storage.count != count {
                    storage = Array(storage[base ..< base + count])
                    base = 0
                }
                storage[position] = newValue
            }
        }

        /// The values as an array: the row's own array itself (no copy), or a copy of its run
        /// of a shared array.
        var ownArray: [AttributeValue] {
            base == 0 && storage.count == count ? storage : Array(storage[base ..< base + count])
        }

        /// Whether the rows hold equal values, as two arrays of them would.
        static func == (a: RowValues, b: RowValues) -> Bool { a.elementsEqual(b) }
    }
}
