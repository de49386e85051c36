/// Where the results of a fetch are among its matches (``FetchPlan``'s `orderPositions`):
/// the matches' positions in result order, and which of them the offset and limit keep.
/// Gathering the results from it (``FetchPlan``'s `gather`) is the last pass of ordering.
struct FetchOrder {
    /// The matches' positions in result order.
    enum Positions {
        /// The matches' own order (no sort, or one the matches were in already).
        case scan
        /// Positions as `Int`s (a merge sort, an index walk).
        case wide([Int])
        /// Positions as `UInt32`s, half the memory (the radix sort of fewer than 2³² matches).
        case narrow([UInt32])
    }

    /// The matches' positions in result order.
    let positions: Positions
    /// The range of the ordered matches that are results: offset and limit applied.
    let kept: Range<Int>
    /// How many matches were ordered.
    let count: Int
}
