extension FileSystem {
    /// Replaces the small file at `path` with `bytes` so that a crash or power loss at any
    /// moment leaves the old contents or the new ones, never a mix, and the new ones once this
    /// returns: a new temporary file beside it, its data synced, renamed over `path`, then the
    /// directory synced. For one-value files such as the replication epoch and hold.
    package func replaceDurably(_ path: String, with bytes: [UInt8]) throws {
        let temporary = "\(path).tmp"
        if exists(temporary) { try remove(temporary) }
        let handle = try open(temporary, mode: .createNew)
        do {
            try handle.writeAll(bytes, at: 0)
            try handle.sync()
        } catch {
            try? handle.close()
            throw error
        }
        try handle.close()
        try rename(temporary, to: path)
        try syncDirectory(StoreFileNames.parent(of: path))
    }
}
