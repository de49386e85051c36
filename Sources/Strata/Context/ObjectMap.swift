/// A context's objects by ``RegistryKey``, held strongly: its registry and its changed
/// objects.
///
/// Primary keys are handed out in ascending order, so the keys a context meets cluster
/// densely. The map keeps, per entity, pages of 1,024 consecutive keys and remembers the
/// page it used last: a run of nearby keys (a fetch's results, a big insert) finds its
/// slots without hashing, in memory it walks in order. A hash map of a million objects
/// instead pays a cache miss on nearly every lookup, which dominated fetching and saving a
/// million objects. Keys of foreign IDs (negative entity numbers) go in a small dictionary.
///
/// Iteration is in key order within each entity, entities in index order, foreign keys last
/// (their entity numbers -1, -2, … in turn).
struct ObjectMap {
    private struct Pages {
        var byNumber: [Int64: ObjectPage] = [:]
        var lastNumber: Int64 = .min
        var last: ObjectPage?
    }

    private var entities: [Pages] = []
    private var foreign: [RegistryKey: ManagedObject] = [:]
    /// How many objects it holds.
    private(set) var count = 0

    /// Whether it holds no object.
    var isEmpty: Bool { count == 0 }

    /// The object with `key`, if any.
    subscript(key: RegistryKey) -> ManagedObject? {
        mutating get { withSlot(key, create: false) { $0 } }
        set { withSlot(key, create: newValue != nil) { $0 = newValue } }
    }

    /// Calls `body` with the slot of `key`, in place (so a reference count read through it
    /// sees only the map's own reference). Without `create`, a key with no page gets an
    /// empty slot that is thrown away.
    mutating func withSlot<Result>(_ key: RegistryKey, create: Bool = true,
                                   _ body: (inout ManagedObject?) -> Result) -> Result {
        if key.entity < 0 { return withForeignSlot(key, body) }
        guard let page = page(entity: key.entity, number: key.primaryKey >> ObjectPage.shift, create: create) else {
            var none: ManagedObject?
            return body(&none)
        }
        // The page is not retained: it is the entity's last-used one now, which the map holds
        // and `noteSlot` never drops, and `body` does not use the map (nor does an object
        // released in it), so nothing lets go of the page during the call.
        let offset = Int(key.primaryKey & ObjectPage.mask)
        let slot = page._withUnsafeGuaranteedRef { $0.slots } + offset
        let had = slot.pointee != nil
        let result = body(&slot.pointee)
        let has = slot.pointee != nil
        if had != has {
            page._withUnsafeGuaranteedRef { page in
                if has { page.noteFilled(offset) }
                noteSlot(filled: has, in: page, entity: key.entity, number: key.primaryKey >> ObjectPage.shift)
            }
        }
        return result
    }

    /// Calls `body` with every key and its slot, in place; a slot `body` sets to `nil` is
    /// emptied. `body` must not use the map.
    mutating func forEachSlot(_ body: (RegistryKey, inout ManagedObject?) -> Void) {
        for entity in entities.indices {
            for number in entities[entity].byNumber.keys.sorted() {
                guard let page = entities[entity].byNumber[number] else { continue }
                let base = number << ObjectPage.shift
                // Only the span that ever held objects since the page was last empty: a
                // context saving one object at a time scans one slot, not 1,024.
                guard page.used > 0 else { continue }
                for offset in page.lowest...page.highest where page.slots[offset] != nil {
                    body(RegistryKey(entity: entity, primaryKey: base + Int64(offset)), &page.slots[offset])
                    if page.slots[offset] == nil { noteSlot(filled: false, in: page, entity: entity, number: number) }
                }
            }
        }
        let foreignKeys = foreign.keys.sorted { ($0.entity, $1.primaryKey) > ($1.entity, $0.primaryKey) }
        for key in foreignKeys { withForeignSlot(key) { body(key, &$0) } }
    }

    /// Every object, in key order.
    var values: [ManagedObject] {
        var copy = self
        var result: [ManagedObject] = []
        result.reserveCapacity(count)
        copy.forEachSlot { _, slot in if let object = slot { result.append(object) } }
        return result
    }

    /// Whether any object satisfies `predicate`, tried in no particular order until one
    /// does. No list of the objects is made (``values`` makes one: 8 bytes and a reference
    /// count an object, a million objects for a context's "has it changes?" before a save).
    func contains(where predicate: (ManagedObject) throws -> Bool) rethrows -> Bool {
        for pages in entities {
            for page in pages.byNumber.values where page.used > 0 {
                for offset in page.lowest...page.highest {
                    if let object = page.slots[offset], try predicate(object) { return true }
                }
            }
        }
        for object in foreign.values where try predicate(object) { return true }
        return false
    }

    /// Every key, in key order.
    var keys: [RegistryKey] {
        var copy = self
        var result: [RegistryKey] = []
        result.reserveCapacity(count)
        copy.forEachSlot { key, _ in result.append(key) }
        return result
    }

    /// Lets go of every object. Each entity's last-used page is kept (emptied), as
    /// `noteSlot` keeps it: a context saving one object at a time reuses it.
    mutating func removeAll() {
        for entity in entities.indices {
            guard let last = entities[entity].last else {
                entities[entity].byNumber = [:]
                continue
            }
            last.removeAll()
            entities[entity].byNumber = [entities[entity].lastNumber: last]
        }
        foreign = [:]
        count = 0
    }

    // MARK: Internals

    private mutating func withForeignSlot<Result>(_ key: RegistryKey, _ body: (inout ManagedObject?) -> Result) -> Result {
        var slot = foreign.removeValue(forKey: key)
        let had = slot != nil
        let result = body(&slot)
        if let slot { foreign[key] = slot }
        if had != (slot != nil) { count += slot != nil ? 1 : -1 }
        return result
    }

    /// The page of `entity` numbered `number` (made when `create`), which becomes the
    /// entity's last-used one; unretained, since the map holds it (see ``withSlot(_:create:_:)``).
    private mutating func page(entity: Int, number: Int64, create: Bool) -> Unmanaged<ObjectPage>? {
        if entity >= entities.count {
            guard create else { return nil }
            entities.append(contentsOf: repeatElement(Pages(), count: entity - entities.count + 1))
        }
        if entities[entity].lastNumber == number, let last = entities[entity].last { return Unmanaged.passUnretained(last) }
        let page: ObjectPage
        if let existing = entities[entity].byNumber[number] {
            page = existing
        } else {
            guard create else { return nil }
            page = ObjectPage()
            entities[entity].byNumber[number] = page
        }
        entities[entity].lastNumber = number
        entities[entity].last = page
        return Unmanaged.passUnretained(page)
    }

    private mutating func noteSlot(filled: Bool, in page: ObjectPage, entity: Int, number: Int64) {
        count += filled ? 1 : -1
        page.used += filled ? 1 : -1
        guard page.used == 0 else { return }
        page.lowest = ObjectPage.size
        page.highest = -1
        // An empty page is dropped, unless it is the entity's last-used one: a context that
        // saves one object at a time would otherwise make and free a page for every save.
        guard entities[entity].lastNumber != number else { return }
        entities[entity].byNumber[number] = nil
    }
}

/// 1,024 slots for consecutive primary keys of one entity.
///
/// A class so that a slot can be changed in place through its pointer; it belongs to one
/// ``ObjectMap`` of one context, used only on that context's queue.
final class ObjectPage {
    /// A key's page number is `key >> shift`; its slot, `key & mask`.
    static let shift: Int64 = 10
    /// Slots per page.
    static let size = 1 << 10
    static let mask: Int64 = (1 << 10) - 1

    /// The slots, allocated once and changed in place.
    let slots: UnsafeMutablePointer<ManagedObject?>
    /// How many slots hold an object.
    var used = 0
    /// The lowest and highest slot filled since the page was last empty (every object is
    /// between them).
    var lowest = ObjectPage.size
    var highest = -1

    /// Widens ``lowest``…``highest`` to `slot`, which was just filled.
    func noteFilled(_ slot: Int) {
        if slot < lowest { lowest = slot }
        if slot > highest { highest = slot }
    }

    init() {
        slots = .allocate(capacity: Self.size)
        slots.initialize(repeating: nil, count: Self.size)
    }

    /// Empties every slot.
    func removeAll() {
        if used > 0 { (slots + lowest).update(repeating: nil, count: highest - lowest + 1) }
        used = 0
        lowest = Self.size
        highest = -1
    }

    deinit {
        // Slots outside lowest…highest are all nil, which needs no deinitializing.
        if used > 0 { (slots + lowest).deinitialize(count: highest - lowest + 1) }
        slots.deallocate()
    }
}
