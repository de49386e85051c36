import Strata

/// The plain in-memory model the store is checked against: dictionaries of rows.
///
/// Schema (``RobustnessSchema``): `Parent` (name, count, flag) with a to-many `children`
/// (cascade) whose inverse is `Child.parent` (to-one, nullify); `Child` (value, note).
struct ParentRow: Hashable, Sendable {
    var name: String
    var count: Int64
    var flag: Bool
}

struct ChildRow: Hashable, Sendable {
    var value: Int64
    var note: String?
    var parent: Int64?
}

/// Every row of both entities, by primary key.
struct GraphState: Hashable, Sendable, CustomStringConvertible {
    var parents: [Int64: ParentRow] = [:]
    var children: [Int64: ChildRow] = [:]

    /// Each parent's children (the derived to-many side), by parent key.
    var childrenByParent: [Int64: [Int64]] {
        var out: [Int64: [Int64]] = [:]
        for (key, child) in children { if let parent = child.parent { out[parent, default: []].append(key) } }
        return out.mapValues { $0.sorted() }
    }

    var description: String {
        let p = parents.keys.sorted().map { k in "P\(k)(\(parents[k]!.name),\(parents[k]!.count),\(parents[k]!.flag))" }
        let c = children.keys.sorted().map { k in
            let row = children[k]!
            return "C\(k)(\(row.value),\(row.note ?? "nil"),→\(row.parent.map { "P\($0)" } ?? "nil"))"
        }
        return "{" + (p + c).joined(separator: " ") + "}"
    }

    /// A short line that tells two states apart (for failure messages).
    func difference(from other: GraphState) -> String {
        var lines: [String] = []
        for key in Set(parents.keys).union(other.parents.keys).sorted() where parents[key] != other.parents[key] {
            lines.append("Parent \(key): \(parents[key].map { "\($0)" } ?? "absent") vs \(other.parents[key].map { "\($0)" } ?? "absent")")
        }
        for key in Set(children.keys).union(other.children.keys).sorted() where children[key] != other.children[key] {
            lines.append("Child \(key): \(children[key].map { "\($0)" } ?? "absent") vs \(other.children[key].map { "\($0)" } ?? "absent")")
        }
        return lines.prefix(8).joined(separator: "; ")
    }
}

/// The committed state, the context's unsaved view, and the commit history.
struct ReferenceModel {
    /// What the store holds.
    var committed = GraphState()
    /// What the writing context sees: committed plus its unsaved changes (deleted rows stay
    /// here, marked in `deletedParents` / `deletedChildren`, until the save applies rules).
    var pending = GraphState()
    var deletedParents: Set<Int64> = []
    var deletedChildren: Set<Int64> = []

    var hasChanges: Bool { pending != committed || !deletedParents.isEmpty || !deletedChildren.isEmpty }

    var aliveParents: [Int64] { pending.parents.keys.filter { !deletedParents.contains($0) }.sorted() }
    var aliveChildren: [Int64] { pending.children.keys.filter { !deletedChildren.contains($0) }.sorted() }

    /// The state a save of the pending changes commits: deletes, then the delete rules
    /// (a deleted parent cascades to the children that point at it at save time).
    var afterSave: GraphState {
        var next = pending
        var goneChildren = deletedChildren
        for (key, child) in pending.children where child.parent.map(deletedParents.contains) == true {
            goneChildren.insert(key)
        }
        for key in deletedParents { next.parents[key] = nil }
        for key in goneChildren { next.children[key] = nil }
        return next
    }

    mutating func save() {
        committed = afterSave
        rollback()
    }

    mutating func rollback() {
        pending = committed
        deletedParents = []
        deletedChildren = []
    }

    /// The state after a batch delete of `parents` and `children` keys in the committed state:
    /// children of deleted parents cascade; nothing else refers to a child.
    func afterBatchDelete(parents: Set<Int64>, children: Set<Int64>) -> GraphState {
        var next = committed
        for key in parents { next.parents[key] = nil }
        for (key, child) in committed.children where children.contains(key) || child.parent.map(parents.contains) == true {
            next.children[key] = nil
        }
        return next
    }
}
