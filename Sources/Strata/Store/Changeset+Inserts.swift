extension Changeset {
    /// The inserted rows of one entity: their keys and values side by side, a list of
    /// ``Insert``s, or a run of rows with consecutive keys whose values lie one row after the
    /// other in one flat array.
    ///
    /// A save lists its rows one by one, each row's values an array of their own: the keys
    /// go in one array and the values' arrays in another, 16 bytes a row where an ``Insert``
    /// takes 32 (at ten million rows, 160 MB not touched), reserved at their final size by
    /// the save (grown by doubling, they were copied about twice over).
    ///
    /// A batch insert writes every row's values into one flat array (row `i` at
    /// `i × width ..< (i + 1) × width`) and takes the keys `first`, `first + 1`, … in order:
    /// as a run, its rows need no `Insert` (32 bytes) each, the run's key order is known
    /// without looking, and a value is read straight from the flat array. At ten million
    /// rows that is 320 MB not allocated, and not touched.
    ///
    /// Read as a collection of ``Insert``s in every form. Appending to the keys and values
    /// side by side keeps that form (a row that shares its array is copied out of it first);
    /// changing a run (``append(_:)``, ``reserveCapacity(_:)``, setting an element) first
    /// turns it into a list.
    struct Inserts: Sendable, RandomAccessCollection {
        private enum Storage: Sendable {
            /// Row `i` has the key `keys[i]` and the values `values[i]` (an array of its own).
            case rows(keys: [Int64], values: [[AttributeValue]])
            case list([Insert])
            /// `count` rows with keys `first ..< first + count`, row `i`'s values at
            /// `i × width` in `values`.
            case run(first: Int64, count: Int, width: Int, values: [AttributeValue])
        }
        private var storage: Storage

        /// No rows.
        init() { storage = .rows(keys: [], values: []) }

        /// The rows of `inserts`, in their order.
        init(_ inserts: [Insert]) { storage = .list(inserts) }

        /// The rows with the keys `keys` and the values `values` (row `i`: `keys[i]` and
        /// `values[i]`, every stored property in layout order), kept as they are.
        init(keys: [Int64], values: [[AttributeValue]]) {
            precondition(keys.count == values.count, "\(keys.count) keys for \(values.count) rows")
            storage = .rows(keys: keys, values: values)
        }

        /// `count` rows with the keys `first ..< first + count`, whose values (`width` a row,
        /// in layout order) lie row after row in `values`.
        init(first: Int64, count: Int, width: Int, values: [AttributeValue]) {
            precondition(count >= 0 && width >= 0 && values.count == count * width, "a run of rows that does not fill its values")
            storage = .run(first: first, count: count, width: width, values: values)
        }

        /// The first row's position: 0.
        var startIndex: Int { 0 }
        /// Past the last row's position: the count.
        var endIndex: Int { count }

        /// The number of rows.
        var count: Int {
            switch storage {
            case .rows(let keys, _): return keys.count
            case .list(let list): return list.count
            case .run(_, let count, _, _): return count
            }
        }

        /// Row `position`.
        subscript(position: Int) -> Insert {
            get {
                switch storage {
                case .rows(let keys, let values): return Insert(primaryKey: keys[position], values: values[position])
                case .list(let list): return list[position]
                case .run(let first, let count, let width, let values):
                    precondition(position >= 0 && position < count, "row \(position) outside a run of \(count)")
                    return Insert(primaryKey: first + Int64(position),
                                  values: RowValues(shared: values, base: position * width, count: width))
                }
            }
            set {
                if case .rows(var keys, var values) = storage {
                    // Emptied first, so that the arrays change in place.
                    storage = .rows(keys: [], values: [])
                    keys[position] = newValue.primaryKey
                    values[position] = newValue.values.ownArray
                    storage = .rows(keys: keys, values: values)
                    return
                }
                var list = takeList()
                list[position] = newValue
                storage = .list(list)
            }
        }

        /// The primary key of row `position`, without making its ``Insert``.
        @inline(__always) func primaryKey(at position: Int) -> Int64 {
            switch storage {
            case .rows(let keys, _): return keys[position]
            case .list(let list): return list[position].primaryKey
            case .run(let first, let count, _, _):
                precondition(position >= 0 && position < count, "row \(position) outside a run of \(count)")
                return first + Int64(position)
            }
        }

        /// The value of property `property` (a position in the layout's properties) of row
        /// `row`, read in place.
        @inline(__always) func value(_ property: Int, ofRow row: Int) -> AttributeValue {
            switch storage {
            case .rows(_, let values): return values[row][property]
            case .list(let list): return list[row].values[property]
            case .run(_, let count, let width, let values):
                precondition(row >= 0 && row < count && property >= 0 && property < width, "a value outside a run of rows")
                return values[row * width + property]
            }
        }

        /// Every row's primary key, in order.
        var primaryKeys: [Int64] {
            switch storage {
            case .rows(let keys, _): return keys
            case .list(let list): return list.map(\.primaryKey)
            case .run(let first, let count, _, _): return (0..<count).map { first + Int64($0) }
            }
        }

        /// The largest primary key (`Int64.min` when there are no rows).
        var largestKey: Int64 {
            switch storage {
            case .rows(let keys, _): return keys.max() ?? .min
            case .list(let list):
                var largest = Int64.min
                for insert in list { largest = Swift.max(largest, insert.primaryKey) }
                return largest
            case .run(let first, let count, _, _): return count == 0 ? .min : first + Int64(count - 1)
            }
        }

        /// The keys when they are consecutive and ascending by construction (a run): the
        /// first and the count; `nil` for a list, whatever its keys.
        var consecutiveKeys: (first: Int64, count: Int)? {
            if case .run(let first, let count, _, _) = storage { return (first, count) }
            return nil
        }

        /// For a run, `body`'s result with the run's first key, its width (values a row) and
        /// its values, row after row, read in place; `nil` for a list.
        func withRunValues<R>(_ body: (_ first: Int64, _ width: Int, _ values: UnsafeBufferPointer<AttributeValue>) throws -> R) rethrows -> R? {
            guard case .run(let first, _, let width, let values) = storage else { return nil }
            return try values.withUnsafeBufferPointer { try body(first, width, $0) }
        }

        /// For a run: its first key, its width (values a row) and its values, row after row.
        var run: (first: Int64, width: Int, values: [AttributeValue])? {
            guard case .run(let first, _, let width, let values) = storage else { return nil }
            return (first, width, values)
        }

        /// Adds `insert` after the rows.
        mutating func append(_ insert: Insert) {
            if case .rows = storage {
                append(primaryKey: insert.primaryKey, values: insert.values.ownArray)
                return
            }
            var list = takeList()
            list.append(insert)
            storage = .list(list)
        }

        /// Adds the row `values` (every stored property, in layout order) with the key
        /// `primaryKey` after the rows, keeping `values` as they are (no copy).
        mutating func append(primaryKey: Int64, values: [AttributeValue]) {
            guard case .rows(var keys, var rows) = storage else {
                append(Insert(primaryKey: primaryKey, values: values))
                return
            }
            // Emptied first, so that the arrays grow in place.
            storage = .rows(keys: [], values: [])
            keys.append(primaryKey)
            rows.append(values)
            storage = .rows(keys: keys, values: rows)
        }

        /// Makes room for `minimumCapacity` rows.
        mutating func reserveCapacity(_ minimumCapacity: Int) {
            if case .rows(var keys, var values) = storage {
                storage = .rows(keys: [], values: [])
                keys.reserveCapacity(minimumCapacity)
                values.reserveCapacity(minimumCapacity)
                storage = .rows(keys: keys, values: values)
                return
            }
            var list = takeList()
            list.reserveCapacity(minimumCapacity)
            storage = .list(list)
        }

        /// The rows as a list, leaving this empty (so that the list is uniquely referenced
        /// while the caller changes it).
        private mutating func takeList() -> [Insert] {
            switch storage {
            case .rows:
                let list = Array(self)
                storage = .list([])
                return list
            case .list(let list):
                storage = .list([])
                return list
            case .run:
                let list = Array(self)
                storage = .list([])
                return list
            }
        }
    }
}
