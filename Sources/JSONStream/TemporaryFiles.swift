import Foundation
import Synchronization

/// The temporary files this process is writing (an export on its way to its final name, a
/// re-analysis's scratch database), so a signal that ends the process can remove them: an
/// interrupted export or re-analysis leaves nothing behind.
///
/// `writeAtomically` registers its temporary sibling for as long as it exists; a scratch folder is
/// registered with the files it may hold (the files are unlinked first, then the folder removed). A termination
/// signal's handler calls `removeAllFromSignalHandler()` and exits in the handler itself, at the
/// moment the signal arrives: a handler run later on another thread (a dispatch source) let an
/// export that was already signalled finish its file and exit 0 first.
///
/// THREAD SAFETY: `register` and `unregister` from any thread; `removeAllFromSignalHandler` from a
/// signal handler on any thread (it takes no lock and allocates nothing), once, before `_exit`.
public enum TemporaryFiles {
    /// Slots of C strings (addresses as integers, 0 when free) the signal handler reads without a
    /// lock. An export holds one temporary file at a time; a 65th at once would not be removed by
    /// a signal. The pointer never changes and every slot is atomic, hence `nonisolated(unsafe)`.
    private static let slotCount = 64
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<Atomic<Int>> = {
        let slots = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: slotCount)
        for index in 0..<slotCount { (slots + index).initialize(to: Atomic(0)) }
        return slots
    }()
    /// Set by the signal handler before it reads the slots: from then on no slot's string is freed.
    private static let exiting = Atomic<Bool>(false)
    /// Serialises `register` and `unregister` (never taken by the signal handler).
    private static let registry = Mutex<Void>(())

    /// Adds `path` (a file, or a folder whose files are registered too) to what a signal removes.
    public static func register(_ path: String) {
        registry.withLock { _ in
            guard let copy = strdup(path) else { return }
            for index in 0..<slotCount where slots[index].load(ordering: .sequentiallyConsistent) == 0 {
                slots[index].store(Int(bitPattern: copy), ordering: .sequentiallyConsistent)
                return
            }
            free(copy)
        }
    }

    /// Removes `path` from what a signal removes (it is gone, or in its final place).
    public static func unregister(_ path: String) {
        registry.withLock { _ in
            for index in 0..<slotCount {
                let address = slots[index].load(ordering: .sequentiallyConsistent)
                guard address != 0, let text = UnsafeMutablePointer<CChar>(bitPattern: address),
                      strcmp(text, path) == 0 else { continue }
                slots[index].store(0, ordering: .sequentiallyConsistent)
                // A handler that began before the slot was cleared may be reading this string.
                if !exiting.load(ordering: .sequentiallyConsistent) { free(text) }
                return
            }
        }
    }

    /// Makes the tables the signal handler reads (their first use allocates): call before
    /// installing the handler.
    public static func prepareForSignals() {
        _ = slots
        _ = exiting.load(ordering: .sequentiallyConsistent)
    }

    /// Deletes every registered file, then every registered (by then empty) folder; only `unlink`,
    /// `rmdir` and atomic loads, safe in a signal handler. The process must end right after (the
    /// slots are left as they are).
    public static func removeAllFromSignalHandler() {
        exiting.store(true, ordering: .sequentiallyConsistent)
        for pass in 0..<2 {
            for index in 0..<slotCount {
                let address = slots[index].load(ordering: .sequentiallyConsistent)
                guard address != 0, let text = UnsafePointer<CChar>(bitPattern: address) else { continue }
                if pass == 0 { unlink(text) } else { rmdir(text) }
            }
        }
    }
}
