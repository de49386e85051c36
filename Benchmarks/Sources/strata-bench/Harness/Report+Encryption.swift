extension Report {
    /// Issue 23's table: per workload, the plain and encrypted medians, encrypted ÷ plain (as a
    /// cost, see ``EncryptionResult/ratio``), the target and the verdict.
    var encryptionTable: String {
        let header = ["workload", "kind", "plain", "encrypted", "enc ÷ plain", "target", "verdict"]
        var rows = [header]
        for result in encryptionResults {
            let unit = result.workload.unit
            rows.append([
                result.workload.name,
                result.target.rawValue,
                result.plain.map { unit.format($0) } ?? (result.status == .failed ? "failed" : "—"),
                result.encrypted.map { unit.format($0) } ?? (result.status == .failed ? "failed" : "—"),
                result.ratio.map { fixed($0, digits: 3) + "×" } ?? "—",
                result.target.describe,
                result.isMet.map { $0 ? "met" : "NOT MET" } ?? "n/a",
            ])
        }
        return TextTable.render(rows, rightAligned: [2, 3, 4])
    }

    /// The line above the encryption table: the CPU's AES flags.
    var aesFlagsLine: String {
        guard !aesFlags.isEmpty else { return "CPU flags: /proc/cpuinfo not readable" }
        return "CPU flags: " + aesFlags.map { "\($0.flag) \($0.present ? "yes" : "NO")" }.joined(separator: ", ")
            + " · AES-256-GCM (swift-crypto, BoringSSL) · fixed test key"
    }
}

/// The `encryption` section of the JSON report.
struct EncryptionSection: Encodable {
    let results: [EncryptionResult]
    let aesFlags: [(flag: String, present: Bool)]

    private enum Keys: String, CodingKey { case cipher, cpuFlags, workloads }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("AES-256-GCM (swift-crypto), fixed test key", forKey: .cipher)
        try container.encode(Dictionary(uniqueKeysWithValues: aesFlags.map { ($0.flag, $0.present) }), forKey: .cpuFlags)
        try container.encode(results.map(Entry.init), forKey: .workloads)
    }

    /// One workload: both medians and every run, in the workload's base unit.
    private struct Entry: Encodable {
        let result: EncryptionResult

        private enum Keys: String, CodingKey {
            case name, group, unit, kind, target, plain, encrypted, ratio, met, status
            case plainRuns, encryptedRuns, storesChecked, notes
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(result.workload.name, forKey: .name)
            try container.encode(result.workload.group, forKey: .group)
            try container.encode(result.workload.unit, forKey: .unit)
            try container.encode(result.target, forKey: .kind)
            try container.encode(result.target.factor, forKey: .target)
            try container.encode(result.plain, forKey: .plain)
            try container.encode(result.encrypted, forKey: .encrypted)
            try container.encode(result.ratio, forKey: .ratio)
            try container.encode(result.isMet, forKey: .met)
            try container.encode(result.status, forKey: .status)
            try container.encode(result.plainRuns, forKey: .plainRuns)
            try container.encode(result.encryptedRuns, forKey: .encryptedRuns)
            try container.encode(result.storesChecked, forKey: .storesChecked)
            try container.encode(result.notes, forKey: .notes)
        }
    }
}
