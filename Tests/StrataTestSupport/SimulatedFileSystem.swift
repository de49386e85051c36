public import StrataStorage

/// An in-memory ``FileSystem`` for crash and fault tests.
///
/// It keeps, for every file, what the process sees and what would survive a power loss
/// (the content at its last sync), and for every directory, which entries are durable. Its
/// power-loss model is POSIX's, as ALICE (OSDI'14) spells it out, not one file system's:
/// - file data written since the file's last `fdatasync` may be dropped, torn, zero-filled
///   or garbage-filled, write by write, independently;
/// - directory operations (creations, renames, removals, `mkdir`) since the directory's last
///   `fsync` persist in **any subset**, not only in order: a later rename can survive
///   without an earlier one. Each operation is atomic (a rename leaves the old name or the
///   new one);
/// - a directory whose own `mkdir` was never synced into its parent disappears, with
///   everything in it.
///
/// A process crash (``processCrashImage()``) keeps everything the process saw *and* what
/// was still unsynced, so a later ``powerLossImage(seed:)`` of that image models a process
/// crash followed by a power loss, with recovery and new appends in between.
///
/// It can also fail the Nth call with an `errno` (``injectFault(atCall:errno:)``), once;
/// make writes short (``shortWrites``); and freeze at a crash point (``crash(atCall:)``):
/// that call and every later one fail with `EIO` and change nothing, as if the process died
/// there.
public final class SimulatedFileSystem: FileSystem {
    enum PendingOp: Sendable {
        case write(offset: Int, bytes: [UInt8])
        case truncate(Int)
    }

    struct Inode: Sendable {
        var content: [UInt8] = []
        var durable: [UInt8] = []
        var pending: [PendingOp] = []
    }

    /// One unsynced change to a directory; each persists or not as a whole.
    enum DirectoryOp: Sendable {
        case create(String, Int)
        case rename(from: String, to: String, Int)
        case unlink(String, Int)
        case mkdir(String)
    }

    struct State: Sendable {
        var inodes: [Int: Inode] = [:]
        var nextInode = 1
        var entries: [String: Int] = [:]
        var durableEntries: [String: Int] = [:]
        /// Unsynced operations, per parent directory, in the order they were made.
        var pendingDirectoryOps: [String: [DirectoryOp]] = [:]
        var directories: Set<String> = []
        var durableDirectories: Set<String> = []
        var calls = 0
        var crashAt: Int?
        var faults: [Int: Int32] = [:]
        var locks: Set<String> = []
        var shortWrites = false
        var random = SplitMix64(seed: 1)
        var damagedWriteSuffix: String?
        var nextFault: (operation: String, pathPart: String, errno: Int32)?
        var hook: (operation: String, remaining: Int, action: @Sendable () -> Void)?
        /// Operations and their paths, for tests that look at the order of calls.
        var trace: [String] = []
        var tracing = false

    }

    let state: Locked<State>

    /// An empty file system.
    public init() { state = Locked(State()) }

    init(state: State) { self.state = Locked(state) }

    /// How many file-system calls have been made so far.
    public var callCount: Int { state.withLock { $0.calls } }

    /// Whether writes may write fewer bytes than asked (callers must loop).
    public var shortWrites: Bool {
        get { state.withLock { $0.shortWrites } }
        set { state.withLock { $0.shortWrites = newValue } }
    }

    /// Makes call number `n` (counting from 1) fail with `errno` without effect.
    public func injectFault(atCall n: Int, errno: Int32) { state.withLock { $0.faults[n] = errno } }

    /// Makes the next call of `operation` (`"open"`, `"pwrite"`, `"fdatasync"`, `"fsync"`,
    /// `"rename"`, `"unlink"`, `"ftruncate"`, …) on a path containing `pathPart` fail with
    /// `errno` without effect, once.
    public func injectFault(atNext operation: String, pathContaining pathPart: String = "", errno: Int32) {
        state.withLock { $0.nextFault = (operation, pathPart, errno) }
    }

    /// Runs `action` right after each of the next `times` calls of `operation` returns (outside
    /// the file system's lock, so `action` may use this file system): a second thread's work
    /// landing at exactly that moment, such as a writer's checkpoint between a reader's
    /// listing of the directory and its reads.
    public func afterNext(_ operation: String, times: Int = 1, perform action: @escaping @Sendable () -> Void) {
        state.withLock { $0.hook = (operation, times, action) }
    }

    /// Makes call number `n` and every later call fail with `EIO` without effect.
    public func crash(atCall n: Int) { state.withLock { $0.crashAt = n } }

    /// Flips one bit in every later write to a path ending with `suffix`, silently, as a
    /// faulty disk or controller would (the write reports success).
    public func damageWrites(toPathsEndingWith suffix: String) { state.withLock { $0.damagedWriteSuffix = suffix } }

    /// Starts recording every call as `"operation path"` (see ``trace``).
    public func startTracing() { state.withLock { $0.tracing = true; $0.trace = [] } }

    /// The calls recorded since ``startTracing()``, in order.
    public var trace: [String] { state.withLock { $0.trace } }

    /// Whether a directory operation on `path` is still waiting for its directory's sync.
    public func hasUnsyncedDirectoryEntry(_ path: String) -> Bool {
        state.withLock { s in
            s.pendingDirectoryOps.values.contains { ops in
                ops.contains { op in
                    switch op {
                    case .create(let p, _), .unlink(let p, _), .mkdir(let p): return p == path
                    case .rename(let from, let to, _): return from == path || to == path
                    }
                }
            }
        }
    }

    /// Whether `path`'s data written so far has all been synced.
    public func isDurable(_ path: String) -> Bool {
        state.withLock { s in s.entries[path].map { s.inodes[$0]?.pending.isEmpty ?? true } ?? false }
    }

    /// The disk as a process restarted after a crash (no power loss) sees it: everything the
    /// crashed process wrote is visible, and what it had not synced is still unsynced, so a
    /// later ``powerLossImage(seed:)`` of this image can still lose it.
    public func processCrashImage() -> SimulatedFileSystem {
        state.withLock { s in
            var image = State()
            image.inodes = s.inodes
            image.nextInode = s.nextInode
            image.entries = s.entries
            image.durableEntries = s.durableEntries
            image.pendingDirectoryOps = s.pendingDirectoryOps
            image.directories = s.directories
            image.durableDirectories = s.durableDirectories
            return SimulatedFileSystem(state: image)
        }
    }

    /// The disk after a power loss, with unsynced data damaged and unsynced directory
    /// operations kept in a subset, as chosen by `seed`.
    public func powerLossImage(seed: UInt64) -> SimulatedFileSystem {
        state.withLock { s in
            var rng = SplitMix64(seed: seed)
            var image = State()
            var entries = s.durableEntries
            var directories = s.durableDirectories
            // Every directory's unsynced operations: each one survives or not, independently
            // (applied in their original order, so a surviving rename still finds its inode).
            for parent in s.pendingDirectoryOps.keys.sorted() {
                for op in s.pendingDirectoryOps[parent]! where rng.next() % 2 == 0 {
                    switch op {
                    case .create(let path, let id):
                        entries[path] = id
                    case .rename(let from, let to, let id):
                        if entries[from] == id { entries[from] = nil }
                        entries[to] = id
                    case .unlink(let path, let id):
                        if entries[path] == id { entries[path] = nil }
                    case .mkdir(let path):
                        directories.insert(path)
                    }
                }
            }
            // A directory that did not survive takes its entries (and subdirectories) along.
            func survives(_ path: String) -> Bool {
                var parent = Self.parent(of: path)
                while parent != "/" && !parent.isEmpty {
                    if s.directories.contains(parent) && !directories.contains(parent) { return false }
                    parent = Self.parent(of: parent)
                }
                return true
            }
            directories = directories.filter(survives)
            entries = entries.filter { survives($0.key) }
            image.directories = directories
            image.durableDirectories = directories
            image.nextInode = s.nextInode
            image.entries = entries
            image.durableEntries = entries
            for id in Set(entries.values) {
                guard let inode = s.inodes[id] else { continue }
                var content = inode.durable
                for op in inode.pending {
                    switch op {
                    case .truncate(let size):
                        if rng.next() % 2 == 0 { Self.resize(&content, to: size) }
                    case .write(let offset, let bytes):
                        switch rng.next() % 5 {
                        case 0: break // dropped
                        case 1: Self.apply(&content, offset: offset, bytes: bytes)
                        case 2: Self.apply(&content, offset: offset, bytes: Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count + 1)))))
                        case 3: Self.apply(&content, offset: offset, bytes: [UInt8](repeating: 0, count: bytes.count))
                        default: Self.apply(&content, offset: offset, bytes: (0..<bytes.count).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
                        }
                    }
                }
                image.inodes[id] = Inode(content: content, durable: content)
            }
            return SimulatedFileSystem(state: image)
        }
    }

    /// The content of a file as the process sees it (for tests that damage files).
    public func contents(of path: String) -> [UInt8]? {
        state.withLock { s in s.entries[path].flatMap { s.inodes[$0]?.content } }
    }

    /// Replaces a file's content, durably (for tests that damage files).
    public func setContents(of path: String, to bytes: [UInt8]) {
        state.withLock { s in
            guard let id = s.entries[path] else { return }
            s.inodes[id] = Inode(content: bytes, durable: bytes)
        }
    }

    // MARK: - FileSystem

    public func open(_ path: String, mode: FileOpenMode) throws -> any FileHandle {
        try call("open", path) { s in
            if let id = s.entries[path] {
                if mode == .createNew { throw SystemError(operation: "open", path: path, errno: 17) } // EEXIST
                return SimulatedFileHandle(fileSystem: self, inode: id, path: path)
            }
            guard mode == .createNew else { throw SystemError(operation: "open", path: path, errno: 2) } // ENOENT
            let id = s.nextInode
            s.nextInode += 1
            s.inodes[id] = Inode()
            s.entries[path] = id
            s.pendingDirectoryOps[Self.parent(of: path), default: []].append(.create(path, id))
            return SimulatedFileHandle(fileSystem: self, inode: id, path: path)
        }
    }

    public func contentsOfDirectory(_ path: String) throws -> [String] {
        try call("opendir", path) { s in
            guard s.directories.contains(path) else { throw SystemError(operation: "opendir", path: path, errno: 2) }
            let prefix = path + "/"
            return s.entries.keys.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }
                .map { String($0.dropFirst(prefix.count)) }.sorted()
        }
    }

    public func createDirectory(_ path: String) throws {
        try call("mkdir", path) { s in
            guard !s.directories.contains(path) else { return }
            s.directories.insert(path)
            s.pendingDirectoryOps[Self.parent(of: path), default: []].append(.mkdir(path))
        }
    }

    public func exists(_ path: String) -> Bool {
        state.withLock { $0.entries[path] != nil || $0.directories.contains(path) }
    }

    public func isDirectory(_ path: String) -> Bool { state.withLock { $0.directories.contains(path) } }

    public func rename(_ source: String, to destination: String) throws {
        try call("rename", source) { s in
            guard let id = s.entries[source] else { throw SystemError(operation: "rename", path: source, errno: 2) }
            s.entries[source] = nil
            s.entries[destination] = id
            s.pendingDirectoryOps[Self.parent(of: source), default: []].append(.rename(from: source, to: destination, id))
        }
    }

    public func remove(_ path: String) throws {
        try call("unlink", path) { s in
            guard let id = s.entries[path] else { throw SystemError(operation: "unlink", path: path, errno: 2) }
            s.entries[path] = nil
            s.pendingDirectoryOps[Self.parent(of: path), default: []].append(.unlink(path, id))
        }
    }

    public func syncDirectory(_ path: String) throws {
        try call("fsync", path) { s in
            for op in s.pendingDirectoryOps.removeValue(forKey: path) ?? [] {
                switch op {
                case .create(let p, let id): s.durableEntries[p] = id
                case .rename(let from, let to, let id):
                    if s.durableEntries[from] == id { s.durableEntries[from] = nil }
                    s.durableEntries[to] = id
                case .unlink(let p, let id): if s.durableEntries[p] == id { s.durableEntries[p] = nil }
                case .mkdir(let p): s.durableDirectories.insert(p)
                }
            }
        }
    }

    public func tryLock(_ path: String) throws -> (any FileLock)? {
        try call("flock", path) { s in
            if s.locks.contains(path) { return nil }
            s.locks.insert(path)
            return SimulatedLock(fileSystem: self, path: path)
        }
    }

    // MARK: - Internals

    /// Counts a call, applies crash points and faults, then runs `body` under the lock.
    func call<T>(_ operation: String, _ path: String?, _ body: (inout State) throws -> T) throws -> T {
        let result = try callLocked(operation, path, body)
        // The hook is taken out while its action runs, so calls the action makes do not fire it.
        let hook = state.withLock { s -> (operation: String, remaining: Int, action: @Sendable () -> Void)? in
            guard let hook = s.hook, hook.operation == operation else { return nil }
            s.hook = nil
            return hook
        }
        if let hook {
            hook.action()
            if hook.remaining > 1 { state.withLock { $0.hook = (operation, hook.remaining - 1, hook.action) } }
        }
        return result
    }

    private func callLocked<T>(_ operation: String, _ path: String?, _ body: (inout State) throws -> T) throws -> T {
        try state.withLock { s in
            s.calls += 1
            if s.tracing { s.trace.append("\(operation) \(path ?? "")") }
            if let crashAt = s.crashAt, s.calls >= crashAt {
                throw SystemError(operation: operation, path: path, errno: 5) // EIO
            }
            if let code = s.faults.removeValue(forKey: s.calls) {
                throw SystemError(operation: operation, path: path, errno: code)
            }
            if let fault = s.nextFault, fault.operation == operation,
               fault.pathPart.isEmpty || (path ?? "").contains(fault.pathPart) {
                s.nextFault = nil
                throw SystemError(operation: operation, path: path, errno: fault.errno)
            }
            return try body(&s)
        }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    func releaseLock(_ path: String) { _ = state.withLock { $0.locks.remove(path) } }

    static func apply(_ content: inout [UInt8], offset: Int, bytes: [UInt8]) {
        if content.count < offset + bytes.count { content.append(contentsOf: repeatElement(0, count: offset + bytes.count - content.count)) }
        content.replaceSubrange(offset..<offset + bytes.count, with: bytes)
    }

    static func resize(_ content: inout [UInt8], to size: Int) {
        if size < content.count { content.removeSubrange(size...) } else {
            content.append(contentsOf: repeatElement(0, count: size - content.count))
        }
    }
}

/// A file opened in a ``SimulatedFileSystem``.
final class SimulatedFileHandle: FileHandle {
    let fileSystem: SimulatedFileSystem
    let inode: Int
    let path: String

    init(fileSystem: SimulatedFileSystem, inode: Int, path: String) {
        self.fileSystem = fileSystem
        self.inode = inode
        self.path = path
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try fileSystem.call("pread", path) { s in
            let content = s.inodes[inode]?.content ?? []
            let start = Int(offset)
            guard start < content.count else { return 0 }
            let n = min(buffer.count, content.count - start)
            content.withUnsafeBytes { src in
                buffer.baseAddress!.copyMemory(from: src.baseAddress! + start, byteCount: n)
            }
            return n
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try fileSystem.call("pwrite", path) { s in
            var n = bytes.count
            if s.shortWrites && n > 1 { n = 1 + Int(s.random.next() % UInt64(n)) }
            var piece = Array(bytes.prefix(n))
            if let suffix = s.damagedWriteSuffix, path.hasSuffix(suffix), !piece.isEmpty { piece[piece.count / 2] ^= 0x04 }
            SimulatedFileSystem.apply(&s.inodes[inode, default: .init()].content, offset: Int(offset), bytes: piece)
            s.inodes[inode, default: .init()].pending.append(.write(offset: Int(offset), bytes: piece))
            return n
        }
    }

    func size() throws -> Int64 {
        try fileSystem.call("fstat", path) { s in Int64(s.inodes[inode]?.content.count ?? 0) }
    }

    func truncate(to size: Int64) throws {
        try fileSystem.call("ftruncate", path) { s in
            SimulatedFileSystem.resize(&s.inodes[inode, default: .init()].content, to: Int(size))
            s.inodes[inode, default: .init()].pending.append(.truncate(Int(size)))
        }
    }

    func sync() throws {
        try fileSystem.call("fdatasync", path) { s in
            guard var node = s.inodes[inode] else { return }
            node.durable = node.content
            node.pending.removeAll()
            s.inodes[inode] = node
        }
    }

    func close() throws {}
}

/// A lock held in a ``SimulatedFileSystem``.
final class SimulatedLock: FileLock {
    let fileSystem: SimulatedFileSystem
    let path: String
    private let released = Locked(false)
    init(fileSystem: SimulatedFileSystem, path: String) {
        self.fileSystem = fileSystem
        self.path = path
    }
    func unlock() {
        let first = released.withLock { wasReleased in
            defer { wasReleased = true }
            return !wasReleased
        }
        if first { fileSystem.releaseLock(path) }
    }
}
