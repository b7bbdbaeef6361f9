import Foundation
import JSONStream
import SessionStore

/// Output files: their folders, and the files written whole or not at all through `AtomicFile`,
/// their failures told as `StoreError.io`.
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

    /// Writes a file whole or not at all (`AtomicFile.write(to:_:)`), its failures as `StoreError`s.
    public static func writeAtomically(to path: String, _ body: (FileByteSink) throws -> Void) throws {
        do {
            try AtomicFile.write(to: path, body)
        } catch let failure as AtomicFile.Failure {
            throw StoreError.io(action: failure.action, path: failure.path, reason: failure.reason)
        }
    }
}
