import Foundation

extension Schema {
    /// The schema as the store keeps it: compact UTF-8 JSON with a `"format"` number, in the
    /// same deterministic form as ``jsonString(prettyPrinted:)`` (custom rules left out), so
    /// two equal schemas give identical bytes. Renaming identifiers (`originalName`) are
    /// left out: they describe a migration, not what is stored.
    ///
    /// - Complexity: O(size of the schema).
    public func encodedForStore() -> [UInt8] {
        Array(withoutOriginalNames.json(includeFormat: true).serialized(pretty: false).utf8)
    }

    /// Reads a schema written by ``encodedForStore()`` and validates it.
    ///
    /// - Throws: `StrataError` `.invalidSchema` when the bytes are not a valid stored schema
    ///   (for example written by a newer format, or damaged).
    public init(storedBytes: some Collection<UInt8>) throws(StrataError) {
        try self.init(jsonData: Data(storedBytes))
    }
}
