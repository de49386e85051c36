// libFuzzer target: the predicate parser and printer.
//
// The input is format text. Whatever parses must print to text that parses to the same
// predicate (print → parse is the identity), and binding it to an entity and evaluating it
// must not crash.
import Foundation
@testable import Strata

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    FuzzSupport.writeSeedsIfAsked {
        [
            "name == 'parent 1'", "count >= 3 AND flag == YES", "NOT (count < -2) OR name BEGINSWITH[c] 'Pa'",
            "name CONTAINS[cd] \"é\"", "name LIKE 'p*t ?'", "name MATCHES '^p[a-z]+$'", "count BETWEEN {1, 10}",
            "count IN {1, 2, 3}", "ANY children.value > 2", "ALL children.value < 5", "NONE children.note == nil",
            "children.@count == 2", "children.@sum.value >= 10", "children.@avg.value < 2.5", "parent.name ENDSWITH 'x'",
            "parent == nil", "when > CAST(1000, 'NSDate')", "ratio != 0.5e-3", "TRUEPREDICATE", "FALSEPREDICATE",
            "id == nil AND blob != nil", "SUBQUERY(children, $c, $c.value > 1).@count > 0", "name == $NAME",
            "count == %d", "name == %@ OR count > %K",
        ].map { Array($0.utf8) }
    }
    return 0
}

struct Row: PredicateSubject {
    var values: [String: AttributeValue]
    var children: [Row] = []
    var parentRow: [Row] = []
    func value(forKey key: String) -> AttributeValue { values[key] ?? .null }
    func toOne(forKey key: String) -> (any PredicateSubject)? { key == "parent" ? parentRow.first : nil }
    func toMany(forKey key: String) -> [any PredicateSubject] { key == "children" ? children : [] }
}

let child = Row(values: ["value": 3, "small": 2, "note": "x"], parentRow: [Row(values: ["name": "p", "count": 1])])
let parent = Row(values: ["name": "parent 1", "count": 4, "flag": true, "ratio": 0.5, "when": .date(Date(timeIntervalSinceReferenceDate: 5))],
                 children: [child, Row(values: ["value": 7, "note": .null])])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard count <= 4096 else { return 0 }
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    guard let predicate = try? ObjectPredicate(format: text) else { return 0 }
    let printed = predicate.predicateFormat
    let reparsed: ObjectPredicate
    do { reparsed = try ObjectPredicate(format: printed) } catch {
        preconditionFailure("printed predicate does not parse: \(printed.debugDescription) from \(text.debugDescription): \(error)")
    }
    precondition(reparsed == predicate, "print → parse changed the predicate: \(text.debugDescription) printed as \(printed.debugDescription)")
    precondition(reparsed.predicateFormat == printed, "printing is not stable for \(printed.debugDescription)")
    for (entity, subject) in [("Parent", parent), ("Child", child)] {
        if let bound = try? predicate.bound(to: entity, in: FuzzSupport.schema) {
            _ = bound.evaluate(with: subject)
        }
    }
    return 0
}
