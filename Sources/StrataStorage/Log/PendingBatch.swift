/// The frames sealed since the last flush, in LSN order, as the pieces to write back to back.
///
/// Small frames are copied into one contiguous buffer, so a group-commit batch of many small
/// frames stays one write. A large payload (``largePayload`` bytes or more) is not copied: the
/// batch keeps a reference to the prepared payload's own buffer and writes it as a piece of
/// its own, right after its header. The bytes on disk are exactly those of
/// `FrameCodec.seal(_:kind:lsn:timestamp:syncedLSN:salt:into:)` into a byte array.
struct PendingBatch {
    /// Payloads of at least this many bytes are written from their own buffer, uncopied.
    static let largePayload = 64 * 1024

    /// Finished pieces, in order.
    private(set) var pieces: [[UInt8]] = []
    /// The piece small frames are being appended to; written after ``pieces``.
    private var tail: [UInt8] = []
    /// Total bytes in the batch.
    private(set) var count = 0
    /// Bytes copied into the batch (everything but the large payloads).
    private(set) var copiedCount = 0

    /// An empty batch whose buffer for small frames has room for `capacity` bytes.
    init(reservingCapacity capacity: Int = 0) {
        tail.reserveCapacity(capacity)
    }

    /// Whether no frame is pending.
    var isEmpty: Bool { count == 0 }

    /// Every piece to write, in order (empty ones left out).
    var allPieces: [[UInt8]] { tail.isEmpty ? pieces : pieces + [tail] }

    /// Appends one whole frame, written by `body` at the end of the contiguous buffer.
    mutating func appendCopied(_ body: (inout [UInt8]) -> Void) {
        let before = tail.count
        body(&tail)
        count += tail.count - before
        copiedCount += tail.count - before
    }

    /// Appends one frame as its header (copied) and its payload (shared, not copied).
    mutating func append(header: [UInt8], sharedPayload payload: [UInt8]) {
        tail.append(contentsOf: header)
        pieces.append(tail)
        pieces.append(payload)
        tail = []
        count += header.count + payload.count
        copiedCount += header.count
    }
}

extension FrameCodec {
    /// Seals `prepared` into the log's pending batch: the same frame bytes as sealing into a
    /// byte array, without copying a large payload.
    static func seal(_ prepared: PreparedPayload, kind: UInt8, lsn: UInt64, timestamp: Int64,
                     syncedLSN: UInt64, salt: UInt32, cipher: (any FileCipher)? = nil,
                     into batch: inout PendingBatch) {
        if let cipher {
            // Encryption copies the payload anyway: the sealed frame is one piece.
            let frame = sealEncrypted(prepared, kind: kind, lsn: lsn, timestamp: timestamp,
                                      syncedLSN: syncedLSN, salt: salt, cipher: cipher)
            if frame.count >= PendingBatch.largePayload {
                batch.append(header: [], sharedPayload: frame)
            } else {
                batch.appendCopied { $0.append(contentsOf: frame) }
            }
            return
        }
        guard prepared.stored.count >= PendingBatch.largePayload else {
            batch.appendCopied { seal(prepared, kind: kind, lsn: lsn, timestamp: timestamp, syncedLSN: syncedLSN, salt: salt, into: &$0) }
            return
        }
        batch.append(header: sealedHeader(prepared, kind: kind, lsn: lsn, timestamp: timestamp, syncedLSN: syncedLSN, salt: salt),
                     sharedPayload: prepared.stored)
    }
}
