public import StrataStorage

/// An in-memory ``FileSystem`` for crash and fault tests.
///
/// It keeps, for every file, what the process sees and what would survive a power loss
/// (the content at its last sync), and for the directory, which entries are durable. It can:
/// - fail the Nth call with an `errno` (``injectFault(atCall:errno:)``), once;
/// - make writes short (``shortWrites``);
/// - freeze at a crash point (``crash(atCall:)``): that call and every later one fail with
///   `EIO` and change nothing, as if the process died there;
/// - produce the disk image after a power loss (``powerLossImage(seed:)``): every write not
///   yet synced is dropped, torn, zero-filled or garbage-filled, and a random prefix of the
///   directory operations not yet synced (creations, renames, removals) survives.
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

    enum DirectoryOp: Sendable {
        case link(String, Int)
        case unlink(String)
    }

    struct State: Sendable {
        var inodes: [Int: Inode] = [:]
        var nextInode = 1
        var entries: [String: Int] = [:]
        var durableEntries: [String: Int] = [:]
        var pendingDirectoryOps: [DirectoryOp] = []
        var directories: Set<String> = []
        var calls = 0
        var crashAt: Int?
        var faults: [Int: Int32] = [:]
        var locks: Set<String> = []
        var shortWrites = false
        var random = SplitMix64(seed: 1)
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

    /// Makes call number `n` and every later call fail with `EIO` without effect.
    public func crash(atCall n: Int) { state.withLock { $0.crashAt = n } }

    /// The disk as a process restarted after a crash (no power loss) would see it.
    public func processCrashImage() -> SimulatedFileSystem {
        state.withLock { s in
            var image = State()
            image.directories = s.directories
            image.entries = s.entries
            image.durableEntries = s.entries
            image.nextInode = s.nextInode
            for (id, inode) in s.inodes { image.inodes[id] = Inode(content: inode.content, durable: inode.content) }
            return SimulatedFileSystem(state: image)
        }
    }

    /// The disk after a power loss, with unsynced data damaged as chosen by `seed`.
    public func powerLossImage(seed: UInt64) -> SimulatedFileSystem {
        state.withLock { s in
            var rng = SplitMix64(seed: seed)
            var image = State()
            image.directories = s.directories
            image.nextInode = s.nextInode
            var entries = s.durableEntries
            let kept = s.pendingDirectoryOps.isEmpty ? 0 : Int(rng.next() % UInt64(s.pendingDirectoryOps.count + 1))
            for op in s.pendingDirectoryOps.prefix(kept) {
                switch op {
                case .link(let path, let id): entries[path] = id
                case .unlink(let path): entries[path] = nil
                }
            }
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
            s.pendingDirectoryOps.append(.link(path, id))
            return SimulatedFileHandle(fileSystem: self, inode: id, path: path)
        }
    }

    public func contentsOfDirectory(_ path: String) throws -> [String] {
        try call("opendir", path) { s in
            guard s.directories.contains(path) else { throw SystemError(operation: "opendir", path: path, errno: 2) }
            let prefix = path + "/"
            return s.entries.keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }.sorted()
        }
    }

    public func createDirectory(_ path: String) throws {
        try call("mkdir", path) { s in _ = s.directories.insert(path) }
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
            s.pendingDirectoryOps.append(.link(destination, id))
            s.pendingDirectoryOps.append(.unlink(source))
        }
    }

    public func remove(_ path: String) throws {
        try call("unlink", path) { s in
            guard s.entries[path] != nil else { throw SystemError(operation: "unlink", path: path, errno: 2) }
            s.entries[path] = nil
            s.pendingDirectoryOps.append(.unlink(path))
        }
    }

    public func syncDirectory(_ path: String) throws {
        try call("fsync", path) { s in
            for op in s.pendingDirectoryOps {
                switch op {
                case .link(let p, let id): s.durableEntries[p] = id
                case .unlink(let p): s.durableEntries[p] = nil
                }
            }
            s.pendingDirectoryOps.removeAll()
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
        try state.withLock { s in
            s.calls += 1
            if let crashAt = s.crashAt, s.calls >= crashAt {
                throw SystemError(operation: operation, path: path, errno: 5) // EIO
            }
            if let code = s.faults.removeValue(forKey: s.calls) {
                throw SystemError(operation: operation, path: path, errno: code)
            }
            return try body(&s)
        }
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
            let piece = Array(bytes.prefix(n))
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
