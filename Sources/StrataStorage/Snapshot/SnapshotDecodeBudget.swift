/// How much memory decoding a snapshot's chunks may take, and what each chunk will take,
/// computed from the footer alone so that a crafted snapshot is refused before anything is
/// decompressed or decoded (`docs/FORMAT.md`, section 5.6).
///
/// LZ4 expands a stored byte to at most 255 raw bytes, and the column decoder turns each bit
/// of a bitmap into a one-byte `Bool`: without a budget, a 1 MiB snapshot with valid
/// checksums could decode to about 2 GiB. The budget is
/// `allowance + perFileByte × fileSize`; the writer keeps every snapshot it writes inside it
/// by storing a chunk uncompressed when a compressed one would not fit, so no snapshot it
/// writes is ever refused.
struct SnapshotDecodeBudget: Sendable, Hashable {
    /// Bytes any snapshot may decode to, whatever its size.
    var allowance: Int
    /// Further bytes per byte of the file.
    var perFileByte: Int

    /// The budget of `docs/FORMAT.md` (``FormatLimits/snapshotDecodeAllowance`` and
    /// ``FormatLimits/snapshotDecodedBytesPerFileByte``).
    static let standard = SnapshotDecodeBudget(allowance: FormatLimits.snapshotDecodeAllowance,
                                               perFileByte: FormatLimits.snapshotDecodedBytesPerFileByte)

    /// The most that the chunks of a file of `fileSize` bytes may decode to.
    func limit(fileSize: Int64) -> Int64 {
        Int64(allowance) + Int64(perFileByte) * fileSize
    }

    /// Memory reckoned for the bookkeeping of one decoded column (the `ColumnChunk` and the
    /// headers of its arrays).
    static let perColumnOverhead = 64

    /// The fewest raw bytes that can hold `rows` rows of `columns`: each column's 8-byte
    /// header and its values, without validity bitmaps or variable-length data.
    static func minimumRawLength(_ columns: [ColumnDescriptor], rows: Int) -> Int {
        Shape(columns).minimumRawLength(rows: rows)
    }

    /// An upper bound on the memory that decoding a chunk of `rows` rows of `columns`
    /// from `rawLength` raw bytes allocates, or `nil` when `rawLength` is too short for
    /// that many rows (``Shape/decodedSize(rows:rawLength:)``).
    static func decodedSize(_ columns: [ColumnDescriptor], rows: Int, rawLength: Int) -> Int? {
        Shape(columns).decodedSize(rows: rows, rawLength: rawLength)
    }

    /// A table's columns counted by kind, which is all the budget needs of them: made once
    /// per table, so that checking a footer's chunks is arithmetic per chunk (issue 21: an
    /// open checks every chunk of the footer).
    struct Shape: Sendable {
        var columns = 0, bools = 0, integers = 0, doubles = 0, byteColumns = 0

        init(_ descriptors: [ColumnDescriptor]) {
            columns = descriptors.count
            for column in descriptors {
                switch column.kind {
                case .bool: bools += 1
                case .int64: integers += 1
                case .double: doubles += 1
                case .bytes: byteColumns += 1
                }
            }
        }

        /// The fewest raw bytes that can hold `rows` rows: each column's 8-byte header and
        /// its values, without validity bitmaps or variable-length data. A bit-packed
        /// integer column (encoding 2) can take 0 bits a row: a reference and a width.
        func minimumRawLength(rows: Int) -> Int {
            8 * columns + bools * ((rows + 7) / 8) + integers * min(8 * rows, 9)
                + doubles * 8 * rows + byteColumns * 4 * (rows + 1)
        }

        /// An upper bound on the memory that decoding `rows` rows from `rawLength` raw bytes
        /// allocates, or `nil` when `rawLength` is too short for that many rows.
        ///
        /// The values take `rows` bytes (bool), `8 × rows` (int64, double) or `4 × (rows + 1)`
        /// (byte offsets) per column, plus ``SnapshotDecodeBudget/perColumnOverhead``. The raw
        /// bytes beyond ``minimumRawLength(rows:)`` can only be validity bitmaps (one byte per
        /// bit once decoded) or variable-length data (one byte per byte), so they add at most
        /// `min(8 × extra, columns × rows + extra)`.
        ///
        /// No arithmetic here overflows: `rows` and `rawLength` are `u32` fields and the
        /// column count is bounded by the footer size.
        func decodedSize(rows: Int, rawLength: Int) -> Int? {
            let minimum = minimumRawLength(rows: rows)
            guard rawLength >= minimum else { return nil }
            let fixed = SnapshotDecodeBudget.perColumnOverhead * columns + bools * rows
                + (integers + doubles) * 8 * rows + byteColumns * 4 * (rows + 1)
            let extra = rawLength - minimum
            return fixed + min(8 * extra, columns * rows + extra)
        }
    }
}
