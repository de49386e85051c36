import Foundation

/// The command line: `todo [--store DIR] [--items N] [--interrupt-after N]`.
struct Options {
    var store = "./todo.strata"
    var items = 1_000_000
    /// Send ourselves SIGINT once the asynchronous fetch has found this many records: the
    /// scripted equivalent of pressing Ctrl-C, for tests and demos.
    var interruptAfter: Int?

    static let usage = """
        usage: todo [--store DIR] [--items N] [--interrupt-after N]

        The Core Data to-do tutorial on Strata. The first run populates N items (default
        1,000,000) with batch inserts; every run then fetches them asynchronously sorted by
        creation date (Ctrl-C cancels), checks them all with a batch update, and adds, toggles
        and deletes single items through a context, printing the time of each step.

          --store DIR          the store directory (default ./todo.strata; created if missing)
          --items N            how many items the store should hold (default 1000000)
          --interrupt-after N  send SIGINT once the fetch has found N records (like Ctrl-C)
          -h, --help           show this help
        """

    /// Parses `arguments` (without the program name); prints a message and exits on error.
    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(for flag: String) -> String {
            guard let value = rest.popFirst() else { fail("\(flag) needs a value") }
            return value
        }
        func count(for flag: String) -> Int {
            let text = value(for: flag)
            guard let n = Int(text.replacingOccurrences(of: "_", with: "")), n >= 0 else {
                fail("\(flag) needs a non-negative integer, not '\(text)'")
            }
            return n
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--store": options.store = value(for: argument)
            case "--items": options.items = count(for: argument)
            case "--interrupt-after": options.interruptAfter = count(for: argument)
            case "-h", "--help":
                print(usage)
                exit(0)
            default: fail("unknown argument '\(argument)'")
            }
        }
        return options
    }

    private static func fail(_ message: String) -> Never {
        Terminal.error("todo: \(message)\n\n\(usage)\n")
        exit(64)  // EX_USAGE
    }
}

/// A small, seeded random number generator (SplitMix64), so every run of the example
/// creates the same items and prints the same list.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
