/// The on-disk format version written by this build, and the limits every decoder enforces.
///
/// The byte layout is specified in `docs/FORMAT.md`. A file whose major version is higher
/// than ``major`` is refused with ``StorageError/Code/unsupportedFormat``; a higher minor
/// version of the same major is readable (minor versions only add optional data).
public enum FormatVersion {
    /// The major format version of plain files: incompatible layout changes bump it.
    public static let major: UInt16 = 1
    /// The minor format version: compatible additions bump it.
    public static let minor: UInt16 = 0
    /// The major version of encrypted log segments and snapshots (`docs/FORMAT.md` 14.7).
    ///
    /// The encrypted layout puts an encryption header where a 1.x reader expects the first
    /// frame or chunk, and marks it only with flag bits that 1.x readers ignore: such a reader
    /// would take a new store's only segment for a torn write and cut it. Under major 2 it
    /// refuses the file with `unsupportedFormat` instead, and changes nothing.
    public static let encryptedMajor: UInt16 = 2
    /// The highest major version of log segments this build reads; a segment with a higher
    /// one is refused with ``StorageError/Code/unsupportedFormat``.
    public static let newestReadableMajor: UInt16 = encryptedMajor
    /// The major version of every snapshot written, plain or encrypted (`docs/FORMAT.md` 7.1):
    /// chunks of one block per column and bit-packed integers, which readers of majors 1 and
    /// 2 would refuse as damage rather than as a newer format.
    public static let snapshotMajor: UInt16 = 3
    /// The highest major version of snapshots this build reads (it reads 1, 2 and 3); a
    /// snapshot with a higher one is refused with ``StorageError/Code/unsupportedFormat``.
    public static let newestReadableSnapshotMajor: UInt16 = snapshotMajor
    /// The major version written for a file: ``encryptedMajor`` when it is encrypted.
    static func written(encrypted: Bool) -> UInt16 { encrypted ? encryptedMajor : major }
}

/// The limits decoders enforce before allocating anything.
public enum FormatLimits {
    /// The largest decompressed payload of one frame (1 GiB).
    public static let maximumFramePayload = 1 << 30
    /// The largest decompressed payload of one snapshot chunk (256 MiB).
    public static let maximumChunkPayload = 1 << 28
    /// The largest snapshot footer index (64 MiB).
    public static let maximumFooterSize = 1 << 26
    /// The largest expansion of an LZ4 block: `n` stored bytes never decompress to more
    /// than `255 × n`. A frame or chunk that declares more is refused before anything is
    /// allocated for it.
    public static let maximumCompressionRatio = 255
    /// Memory that decoding every chunk of a snapshot may take, per byte of the file (512,
    /// twice what LZ4 alone can expand a byte to), on top of ``snapshotDecodeAllowance``.
    /// A snapshot whose footer declares more is refused before any chunk is decoded; the
    /// writer stores a chunk uncompressed rather than exceed it.
    public static let snapshotDecodedBytesPerFileByte = 512
    /// Memory that decoding every chunk of a snapshot may take whatever its size (64 MiB).
    public static let snapshotDecodeAllowance = 1 << 26
}
