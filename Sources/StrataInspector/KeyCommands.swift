import ArgumentParser
import Crypto
import Strata
import StrataEncryption
import StrataStorage

/// `strata encrypt STORE --key-file F`: a plain store rewritten under the key in F.
struct EncryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Encrypt a plain store with the key in a key file (AES-256-GCM).",
        discussion: """
            Rewrites the store under the key as one crash-safe step (a snapshot under the key, \
            a new log segment, then the plain files are removed); after a crash the store opens \
            either plain or with the key, with every committed transaction. Needs the writer lock. \
            Keep the key file safe: the store cannot be read without it.

            Example:
              head -c 32 /dev/urandom > todo.key && strata encrypt todo.strata --key-file todo.key
            """)

    @OptionGroup var target: StoreArgument

    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "The new key: a file of \(KeyFile.formats).", valueName: "file"))
    var keyFile: String

    func run() throws {
        try reportingFailures {
            let key = try KeyFile.read(keyFile)
            let lsn = try KeyRotation.run(target.store, from: nil, to: key)
            print("Encrypted \(target.store) (snapshot at LSN \(lsn)); open it with --key-file \(keyFile) from now on.")
        }
    }
}

/// `strata decrypt STORE --key-file F`: an encrypted store rewritten plain.
struct DecryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Decrypt an encrypted store, given its key file; the store is plain afterwards.",
        discussion: """
            Rewrites the store plain as one crash-safe step; after a crash the store opens either \
            with the key or plain, with every committed transaction. Needs the writer lock.

            Example:
              strata decrypt todo.strata --key-file todo.key
            """)

    @OptionGroup var target: StoreArgument

    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "The store's key: a file of \(KeyFile.formats).", valueName: "file"))
    var keyFile: String

    func run() throws {
        try reportingFailures {
            let key = try KeyFile.read(keyFile)
            let lsn = try KeyRotation.run(target.store, from: key, to: nil)
            print("Decrypted \(target.store) (snapshot at LSN \(lsn)); it opens without a key now.")
        }
    }
}

/// `strata rotate-key STORE --key-file OLD --new-key-file NEW`.
struct RotateKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-key",
        abstract: "Rewrite an encrypted store under a new key.",
        discussion: """
            One crash-safe step: a snapshot under the new key, a new log segment, then the files \
            under the old key are removed. After a crash the store opens with exactly one of the \
            two keys (the other says so), with every committed transaction. Needs the writer lock.

            Example:
              strata rotate-key todo.strata --key-file old.key --new-key-file new.key
            """)

    @OptionGroup var target: StoreArgument

    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "The store's current key: a file of \(KeyFile.formats).", valueName: "file"))
    var keyFile: String

    @Option(name: .customLong("new-key-file"), help: ArgumentHelp(
        "The new key, in the same format.", valueName: "file"))
    var newKeyFile: String

    func run() throws {
        try reportingFailures {
            let old = try KeyFile.read(keyFile)
            let new = try KeyFile.read(newKeyFile, option: "--new-key-file")
            guard old != new else {
                throw InspectorFailure(.usage, "--key-file and --new-key-file hold the same key; give a new one.")
            }
            let lsn = try KeyRotation.run(target.store, from: old, to: new)
            print("Rotated the key of \(target.store) (snapshot at LSN \(lsn)); open it with --key-file \(newKeyFile) from now on.")
        }
    }
}

/// The shared body of `encrypt`, `decrypt` and `rotate-key`.
enum KeyRotation {
    /// Opens `store` for writing under `old`, rewrites it under `new`, and closes it.
    ///
    /// - Returns: the LSN of the rotation's snapshot.
    static func run(_ store: String, from old: SymmetricKey?, to new: SymmetricKey?) throws -> UInt64 {
        let opened = try WritableStore.open(store, cipher: old.map(AESGCMStoreCipher.init(key:)))
        do {
            let lsn = try opened.rotateKey(to: new)
            try opened.close()
            return lsn
        } catch {
            try? opened.close()
            throw error
        }
    }
}
