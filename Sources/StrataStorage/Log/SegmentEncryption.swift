/// The encryption header of a log segment as bytes, for shipping an encrypted store's frames
/// elsewhere (`StrataReplication`) without decrypting them: a restore writes the same header
/// in front of the same frames, so the copy opens with the same key and nothing else.
package enum SegmentEncryption {
    /// The 32-byte ``EncryptionHeader`` of the segment at `path`, or `nil` for a plain one.
    ///
    /// - Throws: ``StorageError`` `corrupted` when the segment's header does not decode
    ///   (it was just read whole by a follower, so that is damage); `io` when it cannot be read.
    package static func header(of handle: any FileHandle, path: String) throws -> [UInt8]? {
        let bytes = try WriteAheadLog.wrap("Reading the header of \(path)") {
            try handle.read(count: SegmentHeader.size + EncryptionHeader.size, at: 0)
        }
        switch SegmentHeader.decode(bytes) {
        case .success(let header): return header.encryption?.encoded()
        case .failure(let defect):
            throw StorageError(.corrupted, "The header of log segment \(path) does not decode (\(defect)).", file: path, offset: 0)
        }
    }

    /// Whether `bytes` are a valid encoded ``EncryptionHeader`` (its checksum holds).
    package static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.count == EncryptionHeader.size && EncryptionHeader.decode(bytes[...]) != nil
    }
}
