import Foundation
internal import StrataStorage

/// A predicate compiled to tight loops over a chunk's columns: comparisons of the fetched
/// entity's numeric, date and boolean attributes with constants, combined with AND, OR and
/// NOT. Predicates it cannot express run through the reference evaluator instead.
/// Semantics match ``BoundPredicate/evaluate(with:)`` exactly (nil compares false except
/// for `!=`; integers and doubles compare exactly).
indirect enum ColumnFilter: Sendable {
    case all(Bool)
    case leaf(column: Int, op: ObjectPredicate.Operator, operands: [AttributeValue])
    case isNull(column: Int, negated: Bool)
    case and(ColumnFilter, ColumnFilter)
    case or(ColumnFilter, ColumnFilter)
    case not(ColumnFilter)

    /// Compiles `node` for `layout`, or `nil` when some part needs the reference evaluator.
    static func compile(_ node: BoundNode, layout: EntityLayout) -> ColumnFilter? {
        switch node {
        case .constant(let value): return .all(value)
        case .and(let a, let b): return compile(a, layout: layout).flatMap { x in compile(b, layout: layout).map { .and(x, $0) } }
        case .or(let a, let b): return compile(a, layout: layout).flatMap { x in compile(b, layout: layout).map { .or(x, $0) } }
        case .not(let a): return compile(a, layout: layout).map { .not($0) }
        case .comparison(let c):
            guard c.modifier == .direct, c.options.isEmpty, case .path(let path) = c.left,
                  path.steps.count == 1, path.steps[0].kind == .attribute,
                  let index = layout.propertyIndex[path.steps[0].name],
                  let type = layout.properties[index].type, type != .string, type != .binary, type != .uuid else { return nil }
            let column = layout.properties[index].column
            switch (c.op, c.right) {
            case (.equalTo, .constant(.null)): return .isNull(column: column, negated: false)
            case (.notEqualTo, .constant(.null)): return .isNull(column: column, negated: true)
            case (.equalTo, .constant(let v)), (.notEqualTo, .constant(let v)), (.lessThan, .constant(let v)),
                 (.lessThanOrEqualTo, .constant(let v)), (.greaterThan, .constant(let v)), (.greaterThanOrEqualTo, .constant(let v)):
                return .leaf(column: column, op: c.op, operands: [v])
            case (.between, .list(let bounds)) where bounds.count == 2 && !bounds.contains(.null):
                return .leaf(column: column, op: .between, operands: bounds)
            case (.in, .list(let values)):
                // NIL in an IN list never matches (the reference skips it); kept, it would
                // read as the column's placeholder (0, 0.0, false) in the typed loops.
                return .leaf(column: column, op: .in, operands: values.filter { !$0.isNull })
            default:
                return nil
            }
        }
    }

    /// The column numbers the filter reads, ascending, each once.
    var columns: [Int] {
        var found = Set<Int>()
        func visit(_ filter: ColumnFilter) {
            switch filter {
            case .all: break
            case .leaf(let column, _, _), .isNull(let column, _): found.insert(column)
            case .and(let a, let b), .or(let a, let b): visit(a); visit(b)
            case .not(let a): visit(a)
            }
        }
        visit(self)
        return found.sorted()
    }

    /// Which rows of `chunk` match.
    /// - Complexity: O(rows) per comparison.
    func evaluate(_ chunk: TableChunk) -> [Bool] {
        evaluate(.all(chunk.loaded), count: chunk.count)
    }

    /// Which of the `n` rows of a chunk whose columns are `chunk` match; `chunk` holds at
    /// least ``columns``.
    /// - Complexity: O(rows) per comparison.
    func evaluate(_ chunk: ChunkColumns, count n: Int) -> [Bool] {
        switch self {
        case .all(let value): return [Bool](repeating: value, count: n)
        case .and(let a, let b):
            var x = a.evaluate(chunk, count: n)
            let y = b.evaluate(chunk, count: n)
            for i in 0..<n { x[i] = x[i] && y[i] }
            return x
        case .or(let a, let b):
            var x = a.evaluate(chunk, count: n)
            let y = b.evaluate(chunk, count: n)
            for i in 0..<n { x[i] = x[i] || y[i] }
            return x
        case .not(let a):
            return a.evaluate(chunk, count: n).map { !$0 }
        case .isNull(let column, let negated):
            guard let validity = chunk[column].validity else { return [Bool](repeating: negated, count: n) }
            return negated ? validity : validity.map { !$0 }
        case .leaf(let column, let op, let operands):
            var mask = Self.compare(chunk[column].values, op: op, operands: operands)
            if let validity = chunk[column].validity {
                // A nil value compares false, except `!=` a value (true).
                let nullResult = op == .notEqualTo
                for i in 0..<n where !validity[i] { mask[i] = nullResult }
            }
            return mask
        }
    }

    private static func compare(_ values: ColumnValues, op: ObjectPredicate.Operator, operands: [AttributeValue]) -> [Bool] {
        switch values {
        case .int64(let v):
            if operands.allSatisfy({ if case .int = $0 { true } else { false } }) {
                let c = operands.map(\.int64Value)
                if op == .between { return between(v, c[0], c[1]) }
                return loop(v, op, c)
            }
            return v.map { x in generic(.int(x), op, operands) }
        case .double(let v):
            let c = operands.map { operand -> Double in
                switch operand {
                case .date(let d): return d.timeIntervalSinceReferenceDate
                case .int(let i): return Double(i)
                default: return operand.doubleValue
                }
            }
            // Integers that a double represents exactly compare the same either way.
            if operands.allSatisfy({ if case .int(let i) = $0 { Double(exactly: i) != nil } else { true } }) {
                return loop(v, op, c)
            }
            return v.map { x in generic(.double(x), op, operands) }
        case .bool(let v):
            let c = operands.map(\.boolValue)
            switch op {
            case .equalTo: return v.map { $0 == c[0] }
            case .notEqualTo: return v.map { $0 != c[0] }
            case .in: return v.map { c.contains($0) }
            default: return [Bool](repeating: false, count: v.count)
            }
        case .bytes(let b):
            return [Bool](repeating: false, count: b.count)
        }
    }

    private static func loop<T: Comparable>(_ v: [T], _ op: ObjectPredicate.Operator, _ c: [T]) -> [Bool] {
        switch op {
        case .equalTo: let k = c[0]; return mask(v) { $0 == k }
        case .notEqualTo: let k = c[0]; return mask(v) { $0 != k }
        case .lessThan: let k = c[0]; return mask(v) { $0 < k }
        case .lessThanOrEqualTo: let k = c[0]; return mask(v) { $0 <= k }
        case .greaterThan: let k = c[0]; return mask(v) { $0 > k }
        case .greaterThanOrEqualTo: let k = c[0]; return mask(v) { $0 >= k }
        case .between: let lo = c[0], hi = c[1]; return mask(v) { $0 >= lo && $0 <= hi }
        case .in: let set = c; return mask(v) { set.contains($0) }
        default: return [Bool](repeating: false, count: v.count)
        }
    }

    /// `lo <= x && x <= hi` for each integer, as one unsigned comparison of `x - lo` with
    /// `hi - lo` (wrapping), which has no branch and vectorizes; nothing matches when
    /// `lo > hi`.
    private static func between(_ v: [Int64], _ lo: Int64, _ hi: Int64) -> [Bool] {
        guard lo <= hi else { return [Bool](repeating: false, count: v.count) }
        let span = UInt64(bitPattern: hi &- lo)
        return mask(v) { UInt64(bitPattern: $0 &- lo) <= span }
    }

    /// `v.map(test)`, written into a buffer of the final size (no capacity checks per row).
    @inline(__always)
    private static func mask<T>(_ v: [T], _ test: (T) -> Bool) -> [Bool] {
        [Bool](unsafeUninitializedCapacity: v.count) { out, n in
            v.withUnsafeBufferPointer { values in
                for i in values.indices { out[i] = test(values[i]) }
            }
            n = v.count
        }
    }

    /// The exact mixed-number path (integers against doubles and the like).
    private static func generic(_ x: AttributeValue, _ op: ObjectPredicate.Operator, _ operands: [AttributeValue]) -> Bool {
        func order(_ b: AttributeValue) -> ComparisonResult? { ValueComparison.order(x, b) }
        switch op {
        case .equalTo: return ValueComparison.equal(x, operands[0])
        case .notEqualTo: return !ValueComparison.equal(x, operands[0])
        case .lessThan: return order(operands[0]) == .orderedAscending
        case .lessThanOrEqualTo: return [.orderedAscending, .orderedSame].contains(order(operands[0]))
        case .greaterThan: return order(operands[0]) == .orderedDescending
        case .greaterThanOrEqualTo: return [.orderedDescending, .orderedSame].contains(order(operands[0]))
        case .between:
            return [.orderedDescending, .orderedSame].contains(order(operands[0])) && [.orderedAscending, .orderedSame].contains(order(operands[1]))
        case .in: return operands.contains { ValueComparison.equal(x, $0) }
        default: return false
        }
    }
}
