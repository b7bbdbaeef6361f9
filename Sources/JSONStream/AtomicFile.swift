import Foundation

/// Output files written whole or not at all: through a temporary sibling, synced, renamed into
/// place. The one writer of the files gazerec produces (exports, figures, calibration documents,
/// BIDS datasets); each module words its failures in its own errors.
public enum AtomicFile {
    /// What a temporary sibling's name adds to the file's, before the process id.
    public static let temporarySuffix = ".tmp-"

    /// The writer's own failure, said of the file asked for (not of its temporary sibling);
    /// `action` is a verb (write).
    public struct Failure: Error, Equatable {
        public let action: String
        public let path: String
        public let reason: String
    }

    /// Writes a file through a temporary sibling and a rename, so readers never see half a file.
    ///
    /// The sibling is `<path>.tmp-<process id>`, locked while it is written and registered with
    /// `TemporaryFiles` (a termination signal removes it); one left by a process that was killed
    /// outright (`kill -9`) is removed the next time `path` is written. Errors of `body` pass
    /// through as they are, except a failure to write the temporary sibling itself, which is said of
    /// `path` as a `Failure`; the writer's own are `Failure`s.
    public static func write(to path: String, _ body: (FileByteSink) throws -> Void) throws {
        try writeThroughTemporary(path) { sink, _ in try body(sink) }
    }

    /// Writes a file as `write(to:_:)` does, for a writer that opens files by name (a video
    /// encoder): `body` gets the temporary sibling's path (already created, empty) and writes it.
    public static func write(to path: String, throughPath body: (_ temporaryPath: String) throws -> Void) throws {
        try writeThroughTemporary(path) { _, temporary in try body(temporary) }
    }

    /// Where a write to `path` goes. A symbolic link is followed: the file it names is replaced, the
    /// link stays. What is not a regular file (a FIFO, a device such as /dev/null or /dev/stdout, a
    /// socket) is written into directly, as a shell's redirection would: it cannot be half-written
    /// as a file can, and replacing it would destroy it.
    private enum Destination {
        case file(String)
        case stream(String)
    }

    private static func destination(_ path: String) throws -> Destination {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .file(path) }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            guard stat(path, &info) == 0 else {
                throw Failure(action: "write", path: path, reason: "it is a symbolic link to a file that does not exist")
            }
            guard (info.st_mode & S_IFMT) == S_IFREG || (info.st_mode & S_IFMT) == S_IFDIR,
                  let resolved = realpath(path, nil) else { return .stream(path) }
            defer { free(resolved) }
            return .file(String(cString: resolved))
        }
        return (info.st_mode & S_IFMT) == S_IFREG || (info.st_mode & S_IFMT) == S_IFDIR ? .file(path) : .stream(path)
    }

    /// Writes into what is at `path` (not a regular file), opened as it is.
    private static func writeInto(_ path: String, _ body: (FileByteSink, String) throws -> Void) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(action: "write", path: path, reason: String(cString: strerror(errno))) }
        do {
            try body(FileByteSink(descriptor: fd, owns: true, name: path), path)
        } catch JSONError.io(let action, path, let reason) {
            throw Failure(action: action, path: path, reason: reason)
        }
    }

    private static func writeThroughTemporary(_ asked: String, synchronized: Bool = true,
                                              _ body: (FileByteSink, String) throws -> Void) throws {
        let path: String
        switch try destination(asked) {
        case .stream(let target): return try writeInto(target, body)
        case .file(let target): path = target
        }
        let temporary = path + temporarySuffix + "\(getpid())"
        TemporaryFiles.register(temporary)
        defer { TemporaryFiles.unregister(temporary) }
        let folder = (path as NSString).deletingLastPathComponent
        let existing = folder.isEmpty ? "." : folder
        var info = stat()
        guard stat(existing, &info) == 0 else {
            throw Failure(action: "write", path: path, reason: "the folder \(existing) does not exist")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw Failure(action: "write", path: path, reason: "\(existing) is a file, not a folder")
        }
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw Failure(action: "write", path: path, reason: "it is a folder")
        }
        StaleFiles.sweep(folder: existing, prefix: (path as NSString).lastPathComponent + temporarySuffix)
        var lock: Int32 = -1
        defer { if lock >= 0 { close(lock) } }
        do {
            let sink: FileByteSink
            do {
                sink = try FileByteSink(creating: temporary)
            } catch JSONError.io(_, _, let reason) {
                throw Failure(action: "write", path: path, reason: reason)
            }
            lock = StaleFiles.lock(temporary)
            try body(sink, temporary)
            if synchronized { try sink.synchronize() }
        } catch JSONError.io(let action, temporary, let reason) {
            unlink(temporary)
            throw Failure(action: action, path: path, reason: reason)
        } catch {
            unlink(temporary)
            throw error
        }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(action: "write", path: path, reason: reason)
        }
    }

    /// Writes `bytes` to `path` as `write(to:_:)` does. Unsynchronized (`synchronized: false`), a
    /// reader still sees the old file or the new one whole, but a power cut may leave neither: for a
    /// file rewritten many times a second whose loss costs nothing (a recorder's live status).
    public static func write(_ bytes: [UInt8], to path: String, synchronized: Bool = true) throws {
        try writeThroughTemporary(path, synchronized: synchronized) { sink, _ in try bytes.withUnsafeBytes { try sink.write($0) } }
    }
}

extension AtomicFile {
    /// Writes a folder whole or not at all: `body` fills a temporary sibling folder
    /// (`<path>.tmp-<process id>`), which is then renamed into place. A folder already at `path` is
    /// moved aside first and removed after, so its files are replaced as a whole (none of them
    /// survives); on any failure `path` is left as it was and the sibling removed.
    public static func writeFolder(to path: String, _ body: (_ temporaryPath: String) throws -> Void) throws {
        let temporary = path + temporarySuffix + "\(getpid())"
        try? FileManager.default.removeItem(atPath: temporary)
        guard mkdir(temporary, 0o777) == 0 else {
            throw Failure(action: "write", path: path, reason: "cannot create a folder beside it: \(String(cString: strerror(errno)))")
        }
        do {
            try body(temporary)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        var info = stat()
        let exists = stat(path, &info) == 0
        let old = path + ".old-\(getpid())"
        if exists, rename(path, old) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw Failure(action: "write", path: path, reason: "cannot replace it: \(reason)")
        }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            if exists { rename(old, path) }
            try? FileManager.default.removeItem(atPath: temporary)
            throw Failure(action: "write", path: path, reason: reason)
        }
        if exists { try? FileManager.default.removeItem(atPath: old) }
    }
}
