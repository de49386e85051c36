// StrataLockProbe <store-dir>
//
// A test-only helper for `LockRaceTests`: a second (and third) process that tries to open a
// store for writing. It prints exactly one line and flushes it:
//   won          — it holds the writer lock; it keeps the store open until its standard
//                  input reaches end of file, then closes the store and exits 0;
//   locked       — another process holds the writer lock (StorageError code `locked`); exit 0;
//   error: <…>   — anything else; exit 1.
import Foundation
import StrataStorage

/// Prints one line and flushes standard output at once, so the parent sees it before the
/// probe blocks on standard input.
func report(_ line: String) {
    print(line)
    fflush(nil) // flushes every output stream, standard output included
}

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    report("error: usage: StrataLockProbe <store-dir>")
    exit(2)
}

do {
    let (engine, _) = try StorageEngine.open(at: arguments[1])
    report("won")
    // Hold the lock until the parent closes our standard input.
    _ = Foundation.FileHandle.standardInput.readDataToEndOfFile()
    try engine.close()
    exit(0)
} catch StorageError.Code.locked {
    report("locked")
    exit(0)
} catch {
    report("error: \(error)")
    exit(1)
}
