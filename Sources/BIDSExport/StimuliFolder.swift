import ContentDigest
import Foundation

/// The dataset's `stimuli/` folder, where BIDS's `stim_file` points: the files a researcher put
/// there, by the SHA-256 of their bytes, so a presentation names the file it showed whatever its
/// name there.
///
/// gazerec does not copy stimuli into a dataset (it holds only their name, size and hash): a
/// presentation whose file is not in the folder gets `stim_file` `n/a` and keeps its hash in the
/// `stimulus_sha256` column, since the BIDS validator refuses a `stim_file` it cannot find.
enum StimuliFolder {
    /// Path relative to `stimuli/` by lowercase hexadecimal SHA-256, for every regular file under
    /// `root/stimuli` (none when there is no such folder); of two files with the same bytes, the
    /// first in sorted order.
    static func files(root: String) -> [String: String] {
        let folder = root + "/stimuli"
        guard let names = FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] else { return [:] }
        var files: [String: String] = [:]
        for name in names.sorted() where !name.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder), !isFolder.boolValue,
                  let hash = try? FileDigest(path: folder + "/" + name).sha256, files[hash] == nil else { continue }
            files[hash] = name
        }
        return files
    }
}
