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
        var total = 0
        for column in columns {
            total += 8
            switch column.kind {
            case .bool: total += (rows + 7) / 8
            // Bit-packed (encoding 2) in 0 bits: a reference and a width.
            case .int64: total += min(8 * rows, 9)
            case .double: total += 8 * rows
            case .bytes: total += 4 * (rows + 1)
            }
        }
        return total
    }

    /// An upper bound on the memory that decoding a chunk of `rows` rows of `columns`
    /// from `rawLength` raw bytes allocates, or `nil` when `rawLength` is too short for
    /// that many rows.
    ///
    /// The values take `rows` bytes (bool), `8 × rows` (int64, double) or `4 × (rows + 1)`
    /// (byte offsets) per column. The raw bytes beyond ``minimumRawLength(_:rows:)`` can only
    /// be validity bitmaps (one byte per bit once decoded) or variable-length data (one byte
    /// per byte), so they add at most `min(8 × extra, columns × rows + extra)`.
    ///
    /// No arithmetic here overflows: `rows` and `rawLength` are `u32` fields and the column
    /// count is bounded by the footer size.
    static func decodedSize(_ columns: [ColumnDescriptor], rows: Int, rawLength: Int) -> Int? {
        let minimum = minimumRawLength(columns, rows: rows)
        guard rawLength >= minimum else { return nil }
        var fixed = 0
        for column in columns {
            fixed += perColumnOverhead
            switch column.kind {
            case .bool: fixed += rows
            case .int64, .double: fixed += 8 * rows
            case .bytes: fixed += 4 * (rows + 1)
            }
        }
        let extra = rawLength - minimum
        return fixed + min(8 * extra, columns.count * rows + extra)
    }
}
