internal import CLZ4

/// LZ4 block compression: the only place in Strata that calls the C library.
///
/// Decompression uses LZ4's safe decoder only and never trusts a length it has not bounded:
/// the caller states the exact decompressed size, which must be within ``maximumBlockSize``.
public enum LZ4 {
    /// The largest block LZ4 can compress or decompress in one call (LZ4_MAX_INPUT_SIZE).
    public static let maximumBlockSize = Int(LZ4_MAX_INPUT_SIZE)

    /// The largest compressed size for an input of `count` bytes, or `nil` when `count` is
    /// too large for one LZ4 block.
    public static func compressBound(_ count: Int) -> Int? {
        guard count >= 0, count <= maximumBlockSize else { return nil }
        return Int(LZ4_compressBound(Int32(count)))
    }

    /// Compresses `input` as one LZ4 block.
    ///
    /// - Returns: the compressed bytes, or `nil` when the input is too large for one block.
    /// - Complexity: O(n).
    public static func compress(_ input: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let bound = compressBound(input.count) else { return nil }
        if input.isEmpty { return [] }
        var failed = false
        // LZ4 writes every byte it reports; the rest of the capacity is never exposed.
        let output = [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            let written = LZ4_compress_default(
                input.baseAddress!.assumingMemoryBound(to: CChar.self),
                UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self),
                Int32(input.count), Int32(bound))
            failed = written <= 0
            count = failed ? 0 : Int(written)
        }
        return failed ? nil : output
    }

    /// Compresses `input` as one LZ4 block.
    public static func compress(_ input: [UInt8]) -> [UInt8]? {
        input.withUnsafeBytes { compress($0) }
    }

    /// Decompresses one LZ4 block whose decompressed size is exactly `originalSize`.
    ///
    /// - Returns: the decompressed bytes, or `nil` when the block is malformed, decodes to a
    ///   different size, or `originalSize` is out of bounds. Never reads or writes out of
    ///   bounds, whatever the input.
    /// - Complexity: O(originalSize).
    public static func decompress(_ input: UnsafeRawBufferPointer, originalSize: Int) -> [UInt8]? {
        guard originalSize >= 0, originalSize <= maximumBlockSize,
              input.count <= maximumBlockSize else { return nil }
        if originalSize == 0 { return input.isEmpty ? [] : nil }
        guard !input.isEmpty else { return nil }
        var ok = false
        // Exposed only when LZ4 produced exactly `originalSize` bytes, all written by it.
        let output = [UInt8](unsafeUninitializedCapacity: originalSize) { buffer, count in
            let produced = LZ4_decompress_safe(
                input.baseAddress!.assumingMemoryBound(to: CChar.self),
                UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self),
                Int32(input.count), Int32(originalSize))
            ok = produced == Int32(originalSize)
            count = ok ? originalSize : 0
        }
        return ok ? output : nil
    }

    /// Decompresses one LZ4 block whose decompressed size is exactly `originalSize`.
    public static func decompress(_ input: [UInt8], originalSize: Int) -> [UInt8]? {
        input.withUnsafeBytes { decompress($0, originalSize: originalSize) }
    }

    /// Decompresses one LZ4 block directly into `destination`, which must be exactly the
    /// decompressed size. Returns `false` when the block is malformed or decodes to another size.
    public static func decompress(_ input: UnsafeRawBufferPointer,
                                  into destination: UnsafeMutableRawBufferPointer) -> Bool {
        guard destination.count <= maximumBlockSize, input.count <= maximumBlockSize else { return false }
        if destination.isEmpty { return input.isEmpty }
        guard !input.isEmpty else { return false }
        let produced = LZ4_decompress_safe(
            input.baseAddress!.assumingMemoryBound(to: CChar.self),
            destination.baseAddress!.assumingMemoryBound(to: CChar.self),
            Int32(input.count), Int32(destination.count))
        return produced == Int32(destination.count)
    }
}
