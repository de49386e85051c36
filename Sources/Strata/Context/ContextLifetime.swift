import Foundation
import Synchronization

/// Whether a context is still alive: shared by the context and every object it makes, and
/// ended when the context is deinitialized.
///
/// Objects do not keep their context alive (as in Core Data). They hold it without a
/// reference count and ask this flag before using it, instead of holding a weak reference:
/// loading a weak reference is an atomic round trip on the context's side table at every
/// property access, and forming and destroying one costs two more per object — together a
/// quarter of a million-object sorted fetch. An object reads the flag on its context's
/// queue; the context ends it from its deinitializer, which runs when its last reference
/// goes. Using an object on one thread while another releases its context's last
/// reference breaks the queue confinement that contexts require, as it does in Core Data.
///
/// It also holds, for every object, what an object would otherwise store itself: its
/// context without a reference count, the store's ID and the entity names, and where each
/// property's column is in its entity's chunks.
///
/// `@unchecked Sendable`: `alive` is atomic and every other property is a constant, except
/// `context`, which the context's initializer sets once, before any object or other thread
/// can reach this lifetime (it is only handed to objects the context makes afterwards).
@usableFromInline final class ContextLifetime: @unchecked Sendable {
    private let alive = Atomic<Bool>(true)
    /// The registrar the context's models share under ``ModelObservation/sharedByContext``.
    /// Kept here rather than in the context so that it lives as long as any object of the
    /// context does: a model that shares it holds its object, which holds this, so the
    /// model can use it without a reference count of its own (see ``ModelBacking``).
    @usableFromInline let sharedModelRegistrar = ModelRegistrar()
    /// The context's store's ID and each entity's name, by layout index, as one interned
    /// pair per entity (``ObjectIDEntity``): what an object's ``ManagedObject/objectID`` is
    /// made of, so that an object stores only its primary key.
    let idEntities: [ObjectIDEntity]
    /// Every entity's ``EntityLayout/columnAccess``, one after another in layout order: an
    /// object reads its properties' columns here (plain values, no count), so its row
    /// (``ObjectRow``) holds no list of them.
    private let flatColumnAccess: [EntityLayout.ColumnAccess]
    /// Where each entity's run starts in `flatColumnAccess`, by layout index.
    private let columnStarts: [Int]
    /// Each entity's ``EntityLayout/columnAccess`` as its own list, by layout index: what a
    /// whole row read out of an object (``RowValues``) is paired with.
    let columnsByLayout: [[EntityLayout.ColumnAccess]]

    /// The context, without a reference count: used only while ``isAlive``. Set by the
    /// context's initializer (see ``bind(_:)``). Kept as `Unmanaged` so that a reader can
    /// borrow it (`_withUnsafeGuaranteedRef`) with no count at all; an `unowned(unsafe)`
    /// reference is retained when loaded.
    private(set) var unmanagedContext: Unmanaged<ObjectContext>?

    /// The context, counted for the caller: used only while ``isAlive``.
    var context: ObjectContext? { unmanagedContext?.takeUnretainedValue() }

    /// A lifetime for the objects of a context of a store whose entities are `idEntities`
    /// and whose layouts' column accesses are `columns`, both by layout index.
    init(idEntities: [ObjectIDEntity], columns: [[EntityLayout.ColumnAccess]]) {
        self.idEntities = idEntities
        columnsByLayout = columns
        flatColumnAccess = Array(columns.joined())
        var starts: [Int] = []
        var start = 0
        for entity in columns {
            starts.append(start)
            start += entity.count
        }
        columnStarts = starts
    }

    /// Where the column of the entity `layout`'s property `property` is.
    @inline(__always)
    func columnAccess(layout: Int, property: Int) -> EntityLayout.ColumnAccess {
        flatColumnAccess[columnStarts[layout] + property]
    }

    /// Records `context`, once, from its initializer.
    func bind(_ context: ObjectContext) {
        precondition(unmanagedContext == nil, "a lifetime belongs to one context")
        unmanagedContext = Unmanaged.passUnretained(context)
    }

    /// Whether the context has not been deinitialized yet.
    var isAlive: Bool { alive.load(ordering: .acquiring) }

    /// Marks the context gone.
    func end() { alive.store(false, ordering: .releasing) }
}
