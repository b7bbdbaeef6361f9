import Foundation
import JSONStream

/// Output files written whole or not at all: through a temporary sibling renamed into place.
public enum OutputFile {
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
    public static func writeAtomically(to path: String, _ body: (FileByteSink) throws -> Void) throws {
        let temporary = path + ".tmp-\(getpid())"
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
        do {
            let sink: FileByteSink
            do {
                sink = try FileByteSink(creating: temporary)
            } catch JSONError.io(_, _, let reason) {
                throw StoreError.io(action: "write", path: path, reason: reason)
            }
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
