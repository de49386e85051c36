import Dispatch
internal import StrataStorage

/// A transaction's log frame as the log takes it: the frame kind (with the authored flag
/// when the store keeps history) and the payload compressed and checksummed.
struct PreparedFrame: Sendable {
    var kind: UInt8
    var payload: PreparedPayload

    /// Wraps `payload` with its author when `authored` (the store keeps persistent history,
    /// see ``AuthoredPayload``), then compresses and checksums it.
    ///
    /// - Throws: `StorageError` `.tooLarge` when the payload exceeds the frame limit.
    init(kind: TransactionKind, author: String?, authored: Bool, payload: [UInt8]) throws {
        let (frameKind, bytes) = authored ? AuthoredPayload.wrap(kind: kind, author: author, payload: payload)
            : (kind.rawValue, payload)
        self.kind = frameKind
        self.payload = try FrameCodec.prepare(bytes)
    }
}

/// The log frame of a large transaction, encoded, compressed and checksummed on a worker
/// thread while the committing thread builds the transaction's next version.
///
/// Both only read the changeset, and for a million rows each takes tens of milliseconds
/// (LZ4 over the payload on one side, the column appends on the other), so on two cores
/// they overlap. A small transaction prepares its frame inline: the thread hop would cost
/// more than it saves (see ``isWorthIt(rows:)``).
final class FramePreparation: @unchecked Sendable {
    // @unchecked Sendable: `outcome` is written once, by the worker, before it leaves
    // `done`; it is read only in `frame()`, after `done.wait()` returns, which orders that
    // write before the read. Nothing else is mutable.
    private var outcome: Result<PreparedFrame, any Error>?
    private let done = DispatchGroup()

    /// Starts `work` on a global queue.
    init(_ work: @escaping @Sendable () throws -> PreparedFrame) {
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            outcome = Result { try work() }
            done.leave()
        }
    }

    /// Waits for the worker and returns its frame.
    ///
    /// - Throws: the error `work` threw.
    func frame() throws -> PreparedFrame {
        done.wait()
        guard let outcome else { preconditionFailure("the frame worker left without a result") }
        return try outcome.get()
    }

    /// From this many inserted or updated rows a transaction prepares its frame on a worker:
    /// its payload then takes about a millisecond or more to encode and compress, against
    /// tens of microseconds for the hop.
    static let threshold = 8_192

    /// Whether a transaction of `rows` inserted or updated rows prepares its frame on a worker.
    static func isWorthIt(rows: Int) -> Bool { rows >= threshold }
}

extension FramePreparation {
    /// The frame of `changes`, a transaction of `kind` that inserts or updates `rows` rows,
    /// started on a worker when that pays (see ``isWorthIt(rows:)``); `nil`: the commit
    /// encodes and prepares the changes itself.
    static func ifWorthIt(_ changes: Changeset, rows: Int, kind: TransactionKind, author: String?,
                          authored: Bool) -> FramePreparation? {
        guard isWorthIt(rows: rows) else { return nil }
        return FramePreparation {
            try PreparedFrame(kind: kind, author: author, authored: authored, payload: ChangesetCodec.encode(changes))
        }
    }
}
