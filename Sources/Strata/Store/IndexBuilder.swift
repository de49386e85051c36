import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the background build of an index runs (``LazyTableIndex/readyIndex(for:building:)``):
/// a function that runs a build somewhere other than the calling thread.
struct IndexBuilder: Sendable {
    /// Runs the build it is given, later and elsewhere.
    let start: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// Each build on a thread of its own whose nice value is 19, the lowest priority: the
    /// scheduler gives it a core only when nothing else of ordinary priority wants one, so a
    /// build started by a fetch does not slow that fetch's scan or the application's work.
    /// Builds are rare (one per index and open), so a thread each costs nothing to speak of.
    static let lowPriorityThread = IndexBuilder { build in
        let thread = Thread {
            lowerThreadPriority()
            build()
        }
        thread.name = "Strata index build"
        thread.start()
    }

    /// Lowers the calling thread's priority to nice 19. On Linux the nice value belongs to a
    /// thread (`setpriority` with `PRIO_PROCESS` and 0 changes the calling thread only).
    private static func lowerThreadPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #endif
    }
}
