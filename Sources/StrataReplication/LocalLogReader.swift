import StrataStorage

/// Reads the frames a store's writer appended after a given LSN, as the exact bytes in its
/// log segments, for shipping.
///
/// It follows the log as a read-only process would (``StrataStorage/LogFollower``: whole,
/// checksummed frames in LSN order, no lock taken), then reads each frame's bytes again from
/// its segment at the offset the follower reported. Frames are never changed after they are
/// written, and the segments are not deleted under it while the replicator's hold
/// (``StrataStorage/ReplicationHooks``) keeps them. The frames of an encrypted store are
/// shipped as they are, still encrypted, each with its segment's encryption header.
struct LocalLogReader {
    /// What one read found.
    enum Batch {
        /// The frames after the last one read (possibly none).
        case frames([ShippedFrame])
        /// The log no longer holds the frame after the last one read: a checkpoint deleted
        /// it before the replicator held the log. The caller ships the newest snapshot and
        /// continues after it.
        case logTrimmed
    }

    let directory: String
    private let fileSystem: any FileSystem
    private var follower: LogFollower
    /// The store's key as it is now (`nil`: plain): the follower checks every frame as
    /// recovery would, which needs the key, and `rotateKey(to:)` changes it.
    private let currentCipher: @Sendable () -> (any StoreCipher)?

    /// A reader that continues after `lsn` in the log of `engine`'s store.
    init(directory: String, after lsn: UInt64, engine: StorageEngine, fileSystem: any FileSystem = PosixFileSystem()) {
        self.init(directory: directory, after: lsn, cipher: { engine.cipher }, fileSystem: fileSystem)
    }

    /// A reader that continues after `lsn`; `cipher` gives the store's key as it is now.
    init(directory: String, after lsn: UInt64, cipher: @escaping @Sendable () -> (any StoreCipher)?,
         fileSystem: any FileSystem = PosixFileSystem()) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.currentCipher = cipher
        self.follower = LogFollower(fileSystem: fileSystem, directory: directory, lastLSN: lsn, cipher: cipher())
    }

    /// The LSN of the last frame read.
    var lastLSN: UInt64 { follower.lastLSN }

    /// Reads the frames appended since the last call.
    ///
    /// - Throws: ``ReplicationError`` `storage` when the log cannot be read.
    /// - Complexity: O(bytes appended since the last call).
    mutating func read() throws(ReplicationError) -> Batch {
        let poll: LogFollower.Poll
        do { poll = try follower.poll() } catch let error as StorageError
            where [.wrongKey, .encryptionKeyRequired, .notEncrypted].contains(error.code) {
            // The store's key was rotated (a new segment under the new key): follow on with it.
            follower = LogFollower(fileSystem: fileSystem, directory: directory, lastLSN: follower.lastLSN, cipher: currentCipher())
            do { poll = try follower.poll() } catch {
                throw ReplicationError(.storage, "Could not read the log of the store at \(directory) to ship it: \(error)", cause: error as? StorageError)
            }
        } catch {
            throw ReplicationError(.storage, "Could not read the log of the store at \(directory) to ship it: \(error)", cause: error as? StorageError)
        }
        if poll.records.isEmpty && poll.needsReopen { return .logTrimmed }
        var frames: [ShippedFrame] = []
        var handles: [String: (handle: any FileHandle, encryption: [UInt8]?)] = [:]
        defer { for open in handles.values { try? open.handle.close() } }
        for record in poll.records {
            do {
                let segment: (handle: any FileHandle, encryption: [UInt8]?)
                if let open = handles[record.segment] { segment = open } else {
                    let path = "\(directory)/\(record.segment)"
                    let handle = try fileSystem.open(path, mode: .readOnly)
                    do { segment = (handle, try SegmentEncryption.header(of: handle, path: path)) }
                    catch { try? handle.close(); throw error }
                    handles[record.segment] = segment
                }
                let bytes = try segment.handle.read(count: record.bytesOnDisk, at: record.offset)
                frames.append(ShippedFrame(lsn: record.lsn, timestamp: record.timestamp, bytes: bytes,
                                           encryption: segment.encryption))
            } catch {
                throw ReplicationError(.storage, "Could not read frame \(record.lsn) from \(record.segment) in \(directory) to ship it: \(error). The segment was removed while it was read; restart the replicator.", cause: error)
            }
        }
        return .frames(frames)
    }
}
