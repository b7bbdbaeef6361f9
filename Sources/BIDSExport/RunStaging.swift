import Foundation
import JSONStream

/// The scratch folder a run is written into beside where it goes (`.gazerec-run-<process id>` in
/// the subject's `beh` folder), then renamed into place: a failure (a full disk, the file-size
/// limit) leaves no part of the run in the dataset.
///
/// The folder is locked while it exists and registered with `TemporaryFiles` with every file
/// written into it, so a termination signal removes it; one left by a process killed outright
/// (`kill -9`) is stale (`StaleFiles`) and removed when the next run is staged in that folder.
final class RunStaging {
    /// What a staging folder's name begins with, before the process id.
    static let prefix = ".gazerec-run-"

    /// The staging folder's path.
    let path: String
    private let lock: Int32
    private var files: [String] = []

    /// Removes the stale staging folders in `folder`, then creates this process's.
    init(folder: String) throws {
        StaleFiles.sweep(folder: folder, prefix: Self.prefix)
        path = "\(folder)/\(Self.prefix)\(getpid())"
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw BIDSExportError.io(action: "create the folder", path: path, reason: (error as NSError).localizedDescription)
        }
        TemporaryFiles.register(path)
        lock = StaleFiles.lock(path)
    }

    /// Where the dataset file `name` (relative to the root) is staged.
    func path(of name: String) -> String { "\(path)/\((name as NSString).lastPathComponent)" }

    /// Registers a file written into the folder, so a signal removes it with the folder.
    func holds(_ file: String) {
        TemporaryFiles.register(file)
        files.append(file)
    }

    /// Removes the folder with whatever is still in it (the files renamed into place are gone from it).
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
        for file in files { TemporaryFiles.unregister(file) }
        TemporaryFiles.unregister(path)
        if lock >= 0 { close(lock) }
    }
}
