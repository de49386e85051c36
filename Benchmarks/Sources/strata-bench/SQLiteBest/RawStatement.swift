import Foundation
import GRDB
import GRDBSQLite

/// SQLite's C API on a statement GRDB prepared: what a SQLite user at their best writes (bind,
/// step, reset), with none of GRDB's per-row conveniences (argument arrays, `Row` values).
struct RawStatement {
    private let statement: Statement
    private let connection: SQLiteConnection

    /// Prepares `sql` on `db`.
    ///
    /// - Throws: `DatabaseError` when the SQL does not compile or the connection is closed.
    init(_ sql: String, in db: Database) throws {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(message: "the connection is closed")
        }
        self.connection = connection
        statement = try db.makeStatement(sql: sql)
    }

    private var handle: SQLiteStatement { statement.sqliteStatement }

    /// Binds an integer to the 1-based parameter `index`.
    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    /// Binds a double to the 1-based parameter `index`.
    func bind(_ index: Int32, _ value: Double) {
        sqlite3_bind_double(handle, index, value)
    }

    /// Binds text to the 1-based parameter `index`; SQLite copies it.
    func bind(_ index: Int32, _ value: String) {
        var value = value
        value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                _ = sqlite3_bind_text(handle, index, chars.baseAddress, Int32(chars.count), Self.transient)
            }
        }
    }

    /// Steps once: `true` when a row is ready, `false` when the statement is done.
    ///
    /// - Throws: `DatabaseError` with SQLite's message on any other result.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw DatabaseError(resultCode: ResultCode(rawValue: code),
                            message: String(cString: sqlite3_errmsg(connection)))
    }

    /// Makes the statement ready to run again with new bindings.
    func reset() {
        sqlite3_reset(handle)
    }

    /// The integer in the 0-based result column `column` of the current row.
    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    /// The text in the 0-based result column `column` of the current row.
    func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// SQLite's `SQLITE_TRANSIENT`: copy the bound bytes now (the macro is not imported).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
