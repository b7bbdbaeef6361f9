import Foundation
import Synchronization

/// The temporary files this process is writing (an export on its way to its final name), so a
/// signal that ends the process can remove them: an interrupted export leaves nothing behind.
///
/// `writeAtomically` registers its temporary sibling for as long as it exists; whoever handles
/// the process's termination signals calls `removeAll()` before exiting.
public enum TemporaryFiles {
    private static let paths = Mutex<Set<String>>([])

    static func register(_ path: String) {
        paths.withLock { _ = $0.insert(path) }
    }

    static func unregister(_ path: String) {
        paths.withLock { _ = $0.remove(path) }
    }

    /// Deletes every registered file; returns how many there were.
    @discardableResult
    public static func removeAll() -> Int {
        paths.withLock { set in
            for path in set { unlink(path) }
            defer { set.removeAll() }
            return set.count
        }
    }
}
