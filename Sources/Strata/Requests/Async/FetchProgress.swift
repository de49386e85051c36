/// How far an asynchronous fetch has got.
///
/// The fetch counts its work in units: a row scanned, a match placed by one pass of the
/// sort (reading the sort keys and gathering the ordered results count as a pass each), a
/// result built (an ID, a dictionary, or an object registered in the context). Updates come
/// at most ``AsynchronousFetchRequest/maximumUnitsBetweenUpdates`` units apart, so a
/// progress bar moves through every phase, the sort included.
public struct FetchProgress: Sendable, Hashable {
    /// What an asynchronous fetch is doing.
    public struct Phase: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The phase's name.
        public var rawValue: String
        /// Creates a phase from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        public var description: String { rawValue }

        /// Reading the pinned version's rows and testing the predicate.
        public static let scanning = Self(rawValue: "scanning")
        /// Ordering the matches by the sort keys.
        public static let sorting = Self(rawValue: "sorting")
        /// Making the results: IDs, dictionaries, or objects registered in the context.
        public static let building = Self(rawValue: "building")
        /// Done: the last update, with the result count.
        public static let finished = Self(rawValue: "finished")
    }

    /// Records found so far (Core Data's completed unit count); after the scan, the number
    /// of results.
    public var found: Int
    /// Rows looked at so far.
    public var scanned: Int
    /// Rows in the version being scanned.
    public var total: Int
    /// Whether this is the last update (`found` is then the result count). It arrives on the
    /// context's queue just before the completion handler, and never after a cancellation.
    public var isFinished: Bool
    /// What the fetch is doing.
    public var phase: Phase = .scanning
    /// Units of work done so far.
    public var completedUnits: Int = 0
    /// Units of work in all, as far as known: before the scan ends it assumes that every row
    /// matches, so it can only shrink, and ``fraction`` only grows.
    public var totalUnits: Int = 0

    /// Creates a progress value.
    public init(found: Int, scanned: Int, total: Int, isFinished: Bool, phase: Phase = .scanning,
                completedUnits: Int = 0, totalUnits: Int = 0) {
        self.found = found
        self.scanned = scanned
        self.total = total
        self.isFinished = isFinished
        self.phase = phase
        self.completedUnits = completedUnits
        self.totalUnits = totalUnits
    }

    /// The share of the work done, from 0 to 1 (1 when finished): `completedUnits /
    /// totalUnits`, monotonic over a fetch's updates.
    public var fraction: Double {
        if isFinished || totalUnits == 0 { return isFinished || total == 0 ? 1 : Double(scanned) / Double(total) }
        return min(1, Double(completedUnits) / Double(totalUnits))
    }
}

extension StrataError.Code {
    /// An asynchronous fetch was cancelled; there is no partial result.
    public static let cancelled = Self(rawValue: "cancelled")
}
