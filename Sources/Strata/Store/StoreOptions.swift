public import StrataStorage

extension PersistentStore {
    /// How a store is opened.
    public struct Options: Sendable {
        /// The storage layer's options: durability (default `.always`), recovery mode,
        /// read-only, create-if-missing, segment size, snapshot retention, file system.
        public var storage = StorageOptions()
        /// Checkpoint automatically once this many bytes were logged since the last one
        /// (and at least as many as the last snapshot's size); `nil` turns it off.
        /// Default 64 MiB.
        public var automaticCheckpointBytes: Int64? = 64 << 20
        /// Whether opening a store with a schema that differs from the stored one migrates
        /// it when a lightweight (inferred) migration can (see <doc:MigratingAStore>); when
        /// `false`, such an open fails with ``StrataError/Code/migrationRequired``. Default
        /// `true`.
        public var lightweightMigration = true
        /// For a read-only open: how often the store follows the process that writes it, by
        /// calling ``PersistentStore/refresh()`` on a background queue (a bounded poll: one
        /// directory listing and one read of the log's new bytes per tick). `nil`, the
        /// default, follows only when the application calls `refresh()`. Ignored by a
        /// writable open. Errors of the automatic refresh are kept in
        /// ``PersistentStore/followError``.
        ///
        /// For example: `var options = PersistentStore.Options.readOnly;
        /// options.followInterval = .milliseconds(100)`.
        public var followInterval: Duration?
        /// Whether to keep persistent history, and how much: every transaction's author,
        /// time, LSN and changed rows, readable with ``PersistentStore/history(after:)``
        /// across checkpoints (see <doc:ObservingChanges>). `nil` (the default, as in Core
        /// Data) keeps none.
        public var persistentHistory: HistoryRetention?
        /// Whether opening the store decodes its snapshot's chunks on a background queue
        /// right away, so that the first full scan finds them decoded. Without it (the
        /// default) each chunk is decoded by the first read that needs it, and only the
        /// chunks something reads ever take their decoded size in memory; with it, memory
        /// grows to the whole decoded snapshot within moments of the open. Reads never wait
        /// for the prefetch: a read that reaches a chunk first decodes it itself.
        public var prefetchesSnapshot = false
        /// Whether a count keeps the columns it decodes for the reads after it. With `true`
        /// (the default) a count's first scan of a snapshot's chunks decodes the columns its
        /// predicate compares and keeps them, so the next count or fetch on those columns
        /// starts from them. With `false` a count decodes those columns one chunk at a time
        /// and lets each go before the next, so its peak memory is one chunk's columns
        /// however many rows it counts, and every such count decodes them again. Columns
        /// already decoded are used either way; fetches always keep what they decode.
        ///
        /// The `strata` inspector opens with `false`: a one-shot `strata count` has no
        /// next read to keep anything for.
        public var countsKeepDecodedColumns = true
        /// Whether a fetch or count whose predicate compiles to a column filter (comparisons
        /// of attributes with constants, combined with AND, OR and NOT) spreads a large
        /// table's chunks over the processor's cores: each thread decodes the chunks it takes
        /// (the first scan after an open decompresses them) and compares their rows, and the
        /// results come back in the same order as from one thread. Tables of fewer than 128
        /// chunks (about 131,000 rows) are scanned on the caller's thread either way, as are
        /// predicates that follow relationships. A batch update or delete likewise decodes
        /// the chunks it is about to rewrite on every core first, when 128 or more of them are
        /// not decoded yet (the first batch request after an open), and a fetch of objects
        /// (without a batch size) decodes the chunks its objects are in the same way before
        /// making them. Default `true`; `false`
        /// keeps every scan and decode on the calling thread, leaving the other cores to the
        /// application.
        public var scansInParallel = true
        /// The fewest chunks each thread of a parallel scan takes (a smaller table is scanned
        /// on one thread), and how many chunks per thread a scan reads between two progress
        /// reports. Internal: tests lower it to split small tables.
        var parallelScanMinimumChunks = 64
        /// Whether a fetch that an index not built yet could serve, on a table of at least
        /// 131,072 rows, scans (or sorts) as it would without the index and has the index built
        /// on a background thread of the lowest priority, for the fetches after it. So the
        /// first queries after an open cost no more than without the index, and the build takes
        /// only a core nothing else wants. With `false`, the first such fetch builds the index
        /// and waits for it (about 20 ms for a million integers). Smaller tables build on the
        /// fetch's thread either way, as do relationship reads and uniqueness checks.
        /// ``PersistentStore/buildIndexes()`` builds every index now. Default `true`.
        public var buildsIndexesInBackground = true
        /// The fewest rows a table has for a fetch to build its indexes in the background.
        /// Internal: tests lower it.
        var backgroundIndexBuildMinimumRows = 131_072
        /// Where background index builds run. Internal: tests hold builds back with it.
        var indexBuilder = IndexBuilder.lowPriorityThread

        /// The defaults: durable saves, strict recovery, automatic checkpoints.
        public init() {}

        /// Where a fetch on a table of `rows` rows builds an index it finds pending: the
        /// background builder, or `nil` for the fetch's own thread.
        func backgroundIndexBuilder(rows: Int) -> IndexBuilder? {
            buildsIndexesInBackground && rows >= backgroundIndexBuildMinimumRows ? indexBuilder : nil
        }

        /// Whether the store is opened read-only: no writer lock, no change to files (the
        /// same as ``readOnly``, as a property: `options.isReadOnly = true`).
        public var isReadOnly: Bool {
            get { storage.readOnly }
            set { storage.readOnly = newValue }
        }

        /// Options for a read-only open (the inspector's): no writer lock, no change to files.
        /// Pass it as `PersistentStore.open(at: path, options: .readOnly)`; to change other
        /// options too, set ``isReadOnly`` on a value of your own.
        public static var readOnly: Options {
            var options = Options()
            options.storage.readOnly = true
            return options
        }
    }
}
