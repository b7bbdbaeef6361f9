import Foundation

/// Temporary files and folders that a process killed outright (`kill -9`, a power cut) could not
/// remove, told apart from a live process's: such a name carries its process id, and the process
/// holds an exclusive `flock` on it for as long as it exists. A leftover is stale when that
/// process is gone and nobody holds its lock (the lock guards against a process id seen from
/// another PID namespace); the next run of the same command removes it.
public enum StaleFiles {
    /// Takes an exclusive lock on the file or folder at `path`, held while the returned descriptor
    /// stays open (close it when the file is gone or in its final place); -1 when it cannot be opened.
    public static func lock(_ path: String) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return -1 }
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
        return descriptor
    }

    /// Whether `name`, which begins with `prefix`, is the leftover of a process that is gone: the
    /// process id right after `prefix` (up to `-` or the end) names no process, and nobody holds the
    /// lock of the file or folder at `path`.
    public static func isStale(_ name: String, prefix: String, path: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let digits = name.dropFirst(prefix.count).prefix { $0 != "-" }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let pid = Int32(digits), pid > 0, pid != getpid() else {
            return false
        }
        guard kill(pid, 0) != 0, errno == ESRCH else { return false }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        flock(descriptor, LOCK_UN)
        return true
    }

    /// Removes the stale leftovers in `folder` whose names begin with `prefix`; returns their paths.
    @discardableResult
    public static func sweep(folder: String, prefix: String) -> [String] {
        let base = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base.isEmpty ? "." : base) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix(prefix) {
            let path = (base.isEmpty ? "" : base + "/") + name
            guard isStale(name, prefix: prefix, path: path) else { continue }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(path) }
        }
        return removed
    }
}
