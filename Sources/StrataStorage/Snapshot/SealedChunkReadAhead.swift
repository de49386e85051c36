/// Which sealed chunks of an encrypted snapshot to open (authenticate and decrypt) ahead of a
/// scan, on another core, and the plaintext of those opened and not yet decoded.
///
/// An encrypted store's open leaves every chunk sealed (`docs/FORMAT.md` §14.3), so the first
/// scan after it opens each chunk's GCM tag before decompressing and decoding the chunk: on
/// one thread that adds AES-GCM to the scan's own work. When a ``SnapshotChunkSource`` decodes
/// chunks one after the other in file order (what every full scan of a table does), this
/// keeps a worker opening the next chunks of the same table, at most ``window`` ahead of the
/// last one decoded, so that the scan finds them opened and only decompresses and decodes.
///
/// Only plaintext that authenticated is kept: the worker calls ``store(_:plaintext:)`` only
/// when the chunk's header and checksum verified (for a chunk read from the file) and the
/// cipher's `open` returned `true`; a chunk that does not is left sealed, and its decode
/// reads and opens it again and throws. A chunk is handed out once
/// (``take(_:)`` removes it); a later decode of it opens it again, as without read-ahead.
/// The decode that takes a chunk's plaintext still reads the chunk and verifies its checksum
/// first (`SnapshotChunkSource.decode(_:only:)`): what the worker saves is the cipher's work,
/// never a check.
///
/// Everything here runs under one lock, a few instructions each time; the cipher runs
/// outside it.
final class SealedChunkReadAhead: Sendable {
    /// How far ahead of the last decoded chunk the worker opens: 32 chunks, under a megabyte
    /// of plaintext at the 1,024 rows a chunk of a store holds.
    static let window = 32

    /// The worker is started again once the scan is within this many chunks of where it
    /// stopped (a start is one dispatch: half a window between two keeps their cost small).
    static let restartWithin = window / 2

    private struct State {
        /// Plaintext of chunks opened ahead and authenticated, not yet decoded.
        var opened: [Int: OpenedChunk] = [:]
        /// The chunk decoded last (-1 before any, so that a scan from chunk 0 is in order).
        var lastDecoded = -1
        /// The next chunk the worker opens.
        var next = 0
        /// Whether a worker is running.
        var running = false
        /// Chunks whose decode took the worker's plaintext (tests read it).
        var served = 0
    }

    /// The table of each chunk, in file order: the worker stays in the table being scanned.
    private let tables: [Int]
    private let state = Locked(State())

    init(tables: [Int]) {
        self.tables = tables
    }

    /// Called by the decode of chunk `index`: hands over its plaintext when the worker opened
    /// it (removing it), and says whether to start the worker, which it does when this
    /// decode follows the previous one in file order and the worker has stopped close
    /// enough behind.
    func take(_ index: Int) -> (plaintext: OpenedChunk?, startWorker: Bool) {
        state.withLock { state in
            // In file order: the next chunk after the last one decoded, or the first of a table
            // (where every scan of it starts).
            let sequential = index == state.lastDecoded + 1 || index == 0 || tables[index - 1] != tables[index]
            state.lastDecoded = index
            let plaintext = state.opened.removeValue(forKey: index)
            if plaintext != nil { state.served += 1 }
            guard sequential, !state.running, index + 1 < tables.count, tables[index + 1] == tables[index] else {
                return (plaintext, false)
            }
            if state.next <= index || state.next > index + Self.window {
                // Behind this decode, or left a window ahead by an earlier pass: start here.
                state.next = index + 1
            }
            guard state.next <= index + Self.restartWithin else { return (plaintext, false) }
            state.running = true
            return (plaintext, true)
        }
    }

    /// The worker's next chunk to open, or `nil` when it should stop (it is a window ahead,
    /// or at the end of the table or of the snapshot); stopping marks it not running.
    func nextToOpen() -> Int? {
        state.withLock { state in
            let last = state.lastDecoded
            state.next = max(state.next, last + 1)
            let index = state.next
            guard last >= 0, index < tables.count, tables[index] == tables[last], index <= last + Self.window else {
                state.running = false
                return nil
            }
            state.next += 1
            return index
        }
    }

    /// Keeps the authenticated plaintext of chunk `index` for its decode, unless that decode
    /// has already passed (it then opened the chunk itself).
    func store(_ index: Int, plaintext: OpenedChunk) {
        state.withLock { state in
            guard index > state.lastDecoded else { return }
            state.opened[index] = plaintext
        }
    }

    /// Whether the worker is running (tests wait for it to stop).
    var isRunning: Bool { state.withLock { $0.running } }

    /// How many decodes took plaintext the worker had opened.
    var served: Int { state.withLock { $0.served } }

    /// The chunks opened ahead and not yet decoded.
    var openedAhead: [Int] { state.withLock { $0.opened.keys.sorted() } }
}

/// A chunk the read-ahead authenticated and decrypted: its payload's plaintext, whether that
/// plaintext is one LZ4 block (the header's flag), and the stored chunk's checksum (the
/// header's), which the decode compares with the chunk it reads again.
struct OpenedChunk: Sendable {
    let plaintext: [UInt8]
    let compressed: Bool
    let checksum: UInt32
}
