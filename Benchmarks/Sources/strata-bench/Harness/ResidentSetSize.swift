import Foundation

/// The process's resident memory, from Linux's `/proc/self/status`.
enum ResidentSetSize {
    /// The current resident set size (`VmRSS`) in bytes, or `nil` where `/proc` is missing.
    static func current() -> Int? {
        field("VmRSS:")
    }

    /// The peak resident set size so far (`VmHWM`) in bytes, or `nil` where `/proc` is missing.
    static func peak() -> Int? {
        field("VmHWM:")
    }

    /// The kB figure of the `/proc/self/status` line starting with `name`, in bytes.
    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return nil
        }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            // "VmRSS:	   12345 kB"
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kibibytes = Int(fields[1]) else { return nil }
            return kibibytes * 1024
        }
        return nil
    }
}
