import ArgumentParser
import Strata
import StrataStorage

/// The exit codes of `strata`: one per class of failure, so that scripts can tell them apart.
enum InspectorExit: Int32, CaseIterable {
    case success = 0
    case unexpected = 1
    case usage = 2
    case notAStore = 3
    case corrupted = 4
    case locked = 5
    case unknownName = 6
    case predicate = 7
    case badImportLine = 8
    case io = 9
    case invalidValue = 10

    /// What the code means, for `--help` and `docs/INSPECTOR.md`.
    var meaning: String {
        switch self {
        case .success: return "success (verify: the store is sound)"
        case .unexpected: return "unexpected internal error"
        case .usage: return "usage: a missing or malformed argument or option, a bad key file, or a key that does not fit the store"
        case .notAStore: return "missing path, not a store, or a store format this build cannot read"
        case .corrupted: return "corrupt store (file and byte offset named); verify: problems found"
        case .locked: return "locked: another process has the store open for writing"
        case .unknownName: return "unknown entity or key (the nearest valid name is suggested)"
        case .predicate: return "predicate syntax or argument error (predicate echoed with a caret)"
        case .badImportLine: return "bad import line (file:line and why; nothing was imported)"
        case .io: return "other I/O failure (permissions, disk full, read-only file system)"
        case .invalidValue: return "invalid value or schema, --at out of reach, or a refused change"
        }
    }

    /// The table of exit codes for `strata --help`.
    static var helpTable: String {
        "Exit codes:\n" + allCases.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n")
    }
}

/// A failure the inspector reports itself: one message for standard error and an exit code.
struct InspectorFailure: Error {
    var exit: InspectorExit
    var message: String

    init(_ exit: InspectorExit, _ message: String) {
        self.exit = exit
        self.message = message
    }

    /// Classifies any error thrown by Strata or the file system.
    init(classifying error: any Error) {
        switch error {
        case let failure as InspectorFailure:
            self = failure
        case let error as StorageError where [.encryptionKeyRequired, .wrongKey, .notEncrypted].contains(error.code):
            self.init(.usage, Self.describeKeyMismatch(error))
        case let error as StorageError:
            self.init(Self.exit(for: error.code), Self.describe(error))
        case let error as StrataError:
            // A snapshot chunk that failed its first read carries the storage error naming it.
            if error.code == .corrupted, let cause = error.cause as? StorageError, cause.code == .corrupted {
                self.init(.corrupted, Self.locate(error.message, cause))
            } else {
                self.init(Self.exit(for: error.code), NearestName.message(for: error))
            }
        default:
            self.init(.io, "\(error)")
        }
    }

    private static func exit(for code: StorageError.Code) -> InspectorExit {
        switch code {
        case .notAStore, .unsupportedFormat: return .notAStore
        case .corrupted: return .corrupted
        case .locked: return .locked
        default: return .io
        }
    }

    private static func exit(for code: StrataError.Code) -> InspectorExit {
        switch code {
        case .unknownEntity, .unknownKey: return .unknownName
        case .predicateSyntax, .predicateArgument: return .predicate
        // A snapshot chunk that failed its first read (file and byte offset in the message).
        case .corrupted: return .corrupted
        default: return .invalidValue
        }
    }

    /// A key that does not fit the store, in the inspector's terms (`--key-file`).
    private static func describeKeyMismatch(_ error: StorageError) -> String {
        // An interrupted key rotation has its own advice (which key to try); keep it whole.
        if error.message.contains("switched to its new key") { return error.message }
        switch error.code {
        case .encryptionKeyRequired:
            return "this store is encrypted: pass --key-file FILE with its key (\(KeyFile.formats)). If strata encrypt was interrupted, the store may still be plain: try without --key-file."
        case .notEncrypted:
            return "this store is not encrypted: leave out --key-file. If strata decrypt was interrupted, the store may still be encrypted: try with the key."
        default:
            return "the key in --key-file does not open this store (\(error.file ?? "")): it was encrypted with another key. If strata rotate-key, encrypt or decrypt was interrupted, try the other key. Nothing was changed."
        }
    }

    /// The message, followed by the file and offset of a corruption when the message lacks them.
    private static func describe(_ error: StorageError) -> String {
        if error.code == .locked {
            return error.message + " Read-only commands (info, schema, query, count, export, log, verify, stats) work meanwhile."
        }
        guard error.code == .corrupted else { return error.message }
        return locate(error.message, error)
    }

    /// `message`, followed by the file and offset of the corruption `error` when it lacks them.
    private static func locate(_ message: String, _ error: StorageError) -> String {
        guard let file = error.file else { return message }
        var where_ = "file: \(file)"
        if let offset = error.offset { where_ += ", offset: \(offset)" }
        return message.contains(file) && (error.offset.map { message.contains(String($0)) } ?? true)
            ? message : "\(message) [\(where_)]"
    }
}

/// Runs a command's body, turning any error into one line on standard error and the exit
/// code of its class.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch {
        let failure = InspectorFailure(classifying: error)
        Console.error("strata: " + failure.message)
        throw ExitCode(failure.exit.rawValue)
    }
}

/// The store format this build writes, for `--version` and `info` on a store without a
/// snapshot: the log's version (1.0; 2.0 encrypted) and, since snapshot major 3, the
/// snapshots' (`docs/FORMAT.md` 7.1).
enum StrataFormat {
    static var description: String { "\(FormatVersion.major).\(FormatVersion.minor)" }
    static var withSnapshots: String { "log \(description), snapshots \(FormatVersion.snapshotMajor).\(FormatVersion.minor)" }
}
