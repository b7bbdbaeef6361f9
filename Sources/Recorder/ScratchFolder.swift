import Foundation
import JSONStream
import SessionStore

/// A re-analysis's private folder under the temporary directory (`gazerec-reanalysis-<pid>-XXXXXX`),
/// where the recorder writes the scratch database the session's data is then replaced from.
///
/// The folder and the files a recording makes in it are registered with `TemporaryFiles`, so a
/// termination signal's handler (installed by the command line) removes them before the process
/// ends; the folder is locked while it exists (`StaleFiles`), so one a `kill -9` left behind is
/// told from a live run's and removed by the next re-analysis (`Reanalysis.sweepStaleScratchFolders`).
final class ScratchFolder {
    /// What every scratch folder's name begins with.
    static let prefix = "gazerec-reanalysis-"
    /// The scratch database's file name.
    static let databaseName = "reanalysis.sqlite"
    /// What a recording into the scratch database makes beside it: SQLite's journal files, the
    /// recorder's lock and status files.
    static let companionSuffixes = ["", "-wal", "-shm", "-journal", ".recorder", ".recorder-status", ".recorder-status.tmp"]

    let path: String
    private let lockDescriptor: Int32

    /// The scratch database's path.
    var databasePath: String { path + "/" + Self.databaseName }

    /// Makes the folder, locked and registered for removal on a signal.
    ///
    /// The path is registered before the folder is made (removing a registered path that does
    /// not exist does nothing), so a signal arriving the moment it appears removes it too; made
    /// by `mkdtemp`, the folder existed for an instant before its name could be registered.
    init() throws {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let suffix = String((0..<6).map { _ in alphabet.randomElement(using: &generator)! })
            let path = Self.temporaryDirectory + "/" + Self.prefix + "\(getpid())-" + suffix
            let databasePath = path + "/" + Self.databaseName
            TemporaryFiles.register(path)
            for suffix in Self.companionSuffixes { TemporaryFiles.register(databasePath + suffix) }
            if mkdir(path, 0o700) == 0 {
                self.path = path
                lockDescriptor = StaleFiles.lock(path)
                return
            }
            let failure = errno
            for suffix in Self.companionSuffixes { TemporaryFiles.unregister(databasePath + suffix) }
            TemporaryFiles.unregister(path)
            guard failure == EEXIST else { throw ReanalysisError.scratch(reason: String(cString: strerror(failure))) }
        }
        throw ReanalysisError.scratch(reason: "no unused name for a scratch folder in \(Self.temporaryDirectory)")
    }

    /// Removes the folder and what it holds.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
        for suffix in Self.companionSuffixes { TemporaryFiles.unregister(databasePath + suffix) }
        TemporaryFiles.unregister(path)
        if lockDescriptor >= 0 { close(lockDescriptor) }
    }

    /// The system's temporary directory (TMPDIR), without a trailing slash.
    static var temporaryDirectory: String {
        let directory = NSTemporaryDirectory()
        return directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }
}

extension Reanalysis {
    /// Removes the scratch folders that re-analyses killed outright (`kill -9`) left in the
    /// temporary directory, leaving those of live processes; returns the paths removed.
    public static func sweepStaleScratchFolders() -> [String] {
        StaleFiles.sweep(folder: ScratchFolder.temporaryDirectory, prefix: ScratchFolder.prefix)
    }
}
