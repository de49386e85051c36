import Foundation
import Strata

/// Completes the library's unknown-name messages for the command line, which always names
/// the nearest valid name: the library suggests one only when it is a likely typo, but a
/// person at a shell prompt is better served by the closest name whatever the distance.
enum NearestName {
    /// `error`'s message, with "; did you mean 'x'?" added when it lists the valid names but
    /// suggests none, and with the stray period after a suggestion's question mark removed.
    static func message(for error: StrataError) -> String {
        var message = error.message.replacingOccurrences(of: "?.", with: "?")
        guard error.code == .unknownKey || error.code == .unknownEntity,
              !message.contains("did you mean"),
              let list = message.firstMatch(of: /[.;]?\s*(?:[Ii]ts \w+ are:? |\(keys: )([^.)]+)/),
              let unknown = (error.code == .unknownEntity ? error.entity : error.key)
                ?? message.firstMatch(of: /'([^']+)'/).map({ String($0.1) }) else { return message }
        let names = list.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let nearest = nearest(to: unknown, among: names) else { return message }
        let before = message[..<list.range.lowerBound]
        let after = message[list.range.lowerBound...].drop { $0 == "." || $0 == ";" || $0 == " " }
        message = "\(before); did you mean '\(nearest)'? " + (after.first?.isLowercase == true ? after.prefix(1).uppercased() + after.dropFirst() : String(after))
        return message
    }

    /// The closest valid name, whatever the distance (``Schema/closestName(to:among:)``).
    static func nearest(to name: String, among candidates: [String]) -> String? {
        Schema.closestName(to: name, among: candidates)
    }
}
