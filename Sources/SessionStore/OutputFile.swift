import Foundation
import JSONStream

/// Output files written whole or not at all: through a temporary sibling renamed into place.
public enum OutputFile {
    /// What a temporary sibling's name adds to the file's, before the process id.
    static let temporarySuffix = ".tmp-"

    /// Creates `directory` and its missing parents, with errors that name the part in the way.
    public static func createFolder(_ directory: String) throws {
        var prefix = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            var info = stat()
            if stat(prefix, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw StoreError.io(action: "create the output folder", path: directory,
                                        reason: "\(prefix.hasPrefix("./") ? String(prefix.dropFirst(2)) : prefix) is a file, not a folder")
                }
                continue
            }
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw StoreError.io(action: "create the output folder", path: directory, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Writes a file through a temporary sibling and a rename, so readers never see half a file.
    ///
    /// The sibling is `<path>.tmp-<process id>`, locked while it is written; one left by a process
    /// that was killed outright (`kill -9`) is removed the next time `path` is written.
    public static func writeAtomically(to path: String, _ body: (FileByteSink) throws -> Void) throws {
        let temporary = path + temporarySuffix + "\(getpid())"
        TemporaryFiles.register(temporary)
        defer { TemporaryFiles.unregister(temporary) }
        // Said of the file asked for, not of its temporary sibling.
        let folder = (path as NSString).deletingLastPathComponent.nonEmpty ?? "."
        var info = stat()
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StoreError.io(action: "write", path: path, reason: "the folder \(folder) does not exist")
        }
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw StoreError.io(action: "write", path: path, reason: "it is a folder")
        }
        let name = (path as NSString).lastPathComponent
        StaleFiles.sweep(folder: folder, prefix: name + temporarySuffix)
        var lock: Int32 = -1
        defer { if lock >= 0 { close(lock) } }
        do {
            let sink: FileByteSink
            do {
                sink = try FileByteSink(creating: temporary)
            } catch JSONError.io(_, _, let reason) {
                throw StoreError.io(action: "write", path: path, reason: reason)
            }
            lock = StaleFiles.lock(temporary)
            try body(sink)
            try sink.synchronize()
        } catch {
            unlink(temporary)
            throw error
        }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw StoreError.io(action: "write", path: path, reason: reason)
        }
    }
}

extension SessionDatabase {
    /// See `OutputFile.createFolder`.
    public static func createFolder(_ directory: String) throws { try OutputFile.createFolder(directory) }

    /// See `OutputFile.writeAtomically`.
    public static func writeAtomically(to path: String, _ body: (FileByteSink) throws -> Void) throws {
        try OutputFile.writeAtomically(to: path, body)
    }
}
