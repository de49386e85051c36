import PostgresNIO

/// The tables a replicator creates in PostgreSQL, version 3 (docs/REPLICATION.md, section 2).
///
/// Version 2 adds `strata_stores.epoch`, the fencing epoch a promotion raises; version 3
/// adds `strata_frames.encryption`, the segment encryption header an encrypted store's
/// frames need to be written back (`NULL` for a plain store). Older databases are upgraded
/// in place (the columns are added with 0, every store's first epoch, and `NULL`).
///
/// Every statement is idempotent and runs under a transaction-scoped advisory lock, so two
/// replicators starting at once against a new database do not race on `CREATE TABLE`.
enum ReplicationSchema {
    /// The schema version these statements make and this build reads and writes.
    static let version: Int32 = 3

    /// The channel a shipping transaction notifies (payload: the store ID) and replicas listen on.
    static let frameChannel = "strata_frames"

    /// The advisory lock key that serializes schema creation (`"strata"` in ASCII).
    static let lockKey: Int64 = 0x7374_7261_7461

    static let statements: [String] = [
        """
        CREATE TABLE IF NOT EXISTS strata_schema (
            version integer NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS strata_stores (
            store_id text PRIMARY KEY,
            shipped_lsn bigint NOT NULL DEFAULT 0,
            updated_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        "ALTER TABLE strata_stores ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0",
        """
        CREATE TABLE IF NOT EXISTS strata_frames (
            store_id text NOT NULL,
            lsn bigint NOT NULL,
            committed_at bigint NOT NULL,
            frame bytea NOT NULL,
            PRIMARY KEY (store_id, lsn)
        )
        """,
        "ALTER TABLE strata_frames ADD COLUMN IF NOT EXISTS encryption bytea",
        """
        CREATE TABLE IF NOT EXISTS strata_snapshot_chunks (
            store_id text NOT NULL,
            lsn bigint NOT NULL,
            chunk integer NOT NULL,
            bytes bytea NOT NULL,
            PRIMARY KEY (store_id, lsn, chunk)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS strata_snapshots (
            store_id text NOT NULL,
            lsn bigint NOT NULL,
            size bigint NOT NULL,
            chunks integer NOT NULL,
            checksum bigint NOT NULL,
            shipped_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (store_id, lsn)
        )
        """,
    ]

    /// Creates the tables when missing, records the version in a new database, and refuses
    /// a database whose tables a newer, incompatible version made.
    ///
    /// - Throws: ``ReplicationError`` `unsupportedSchema`, `server` or `unreachable`.
    static func prepare(_ session: PostgresSession) throws(ReplicationError) {
        try session.transaction("Creating the replication tables") { () throws(ReplicationError) in
            try session.run("SELECT pg_advisory_xact_lock(\(lockKey))", "Locking the replication schema")
            for statement in statements {
                try session.run(PostgresQuery(unsafeSQL: statement), "Creating the replication tables")
            }
            let rows = try session.run("SELECT max(version) FROM strata_schema", "Reading the replication schema version")
            let found = try rows.first.flatMap { row throws(ReplicationError) in
                try decoding("the schema version") { try row.decode(Int32?.self) }
            }
            if let found, found > version {
                throw ReplicationError(.unsupportedSchema, "The replication tables in \(session.location) were made by schema version \(found); this build of Strata reads version \(version) and older. Upgrade Strata, or point it at another database.")
            }
            if found != version {
                // A new database, or one this statement list has just upgraded.
                try session.run("INSERT INTO strata_schema (version) VALUES (\(version))", "Recording the replication schema version")
            }
        }
    }

    /// Decodes the columns of a row with `body`, with an error that says which value was unreadable.
    static func decoding<T>(_ what: String, _ body: () throws -> T) throws(ReplicationError) -> T {
        do { return try body() }
        catch { throw ReplicationError(.server, "PostgreSQL returned \(what) in an unexpected form (\(error)); the replication tables may have been changed by hand.", cause: SendableCause(error)) }
    }
}
