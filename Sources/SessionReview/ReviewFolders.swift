import Foundation

/// The folders the server may read files from (stimuli) and read and write AOI files in, and the one
/// rule for every path a request names: resolved (symbolic links followed, `..` removed), it must
/// lie inside one of them; anything else is `ReviewError.outsideFolders`.
public struct ReviewFolders: Sendable {
    /// The stimulus folders, resolved.
    public let stimuli: [String]
    /// The AOI folder, resolved (nil: AOI files cannot be saved or loaded).
    public let aoi: String?

    /// Checks that each folder exists and is a folder.
    public init(stimuli: [String], aoi: String?) throws {
        self.stimuli = try stimuli.map(Self.folder)
        self.aoi = try aoi.map(Self.folder)
    }

    static func folder(_ path: String) throws -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw ReviewError.notAFolder(path: path, reason: "no such folder")
        }
        guard isFolder.boolValue else { throw ReviewError.notAFolder(path: path, reason: "it is a file") }
        return resolved(path) ?? path
    }

    /// The path with every symbolic link followed (realpath), nil when it does not exist.
    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// Whether resolved `path` lies inside resolved `folder`.
    static func isInside(_ path: String, _ folder: String) -> Bool {
        path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }

    /// A stimulus named `index/relative/path` (the listing's names): its resolved path inside stimulus
    /// folder `index`, or `outsideFolders`.
    public func stimulus(named name: String) throws -> String {
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let index = Int(parts[0]), stimuli.indices.contains(index),
              let path = Self.resolved(stimuli[index] + "/" + parts[1]), Self.isInside(path, stimuli[index]),
              Self.isFile(path) else {
            throw ReviewError.outsideFolders(path: name)
        }
        return path
    }

    static func isFile(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
    }

    /// The file extensions listed as stimuli.
    static let stimulusExtensions: Set<String> = ["mp4", "m4v", "mkv", "webm", "mov", "ogv", "png", "jpg", "jpeg", "gif", "webp"]

    /// Every stimulus file in the folders (sub-folders included), as `index/relative/path`, sorted; files
    /// whose links lead outside their folder are left out.
    public func stimulusNames() -> [String] {
        var names: [String] = []
        for (index, folder) in stimuli.enumerated() {
            guard let walker = FileManager.default.enumerator(atPath: folder) else { continue }
            while let relative = walker.nextObject() as? String {
                let ext = (relative as NSString).pathExtension.lowercased()
                guard Self.stimulusExtensions.contains(ext), let path = Self.resolved(folder + "/" + relative),
                      Self.isInside(path, folder), Self.isFile(path) else { continue }
                names.append("\(index)/\(relative)")
            }
        }
        return names.sorted()
    }

    /// The path of AOI file `name` in the AOI folder: a plain file name ending in `.json` (no folder
    /// part), whose resolved path (when it exists) stays inside the folder; another name is `badAOIName`.
    public func aoiFile(named name: String) throws -> String {
        guard let aoi else { throw ReviewError.noAOIFolder }
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."), name.lowercased().hasSuffix(".json") else {
            throw ReviewError.badAOIName(name)
        }
        let path = aoi + "/" + name
        if let target = Self.resolved(path), !Self.isInside(target, aoi) { throw ReviewError.outsideFolders(path: name) }
        return path
    }

    /// The `.json` files of the AOI folder, sorted.
    public func aoiNames() throws -> [String] {
        guard let aoi else { throw ReviewError.noAOIFolder }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: aoi)) ?? []
        return names.filter { $0.lowercased().hasSuffix(".json") && !$0.hasPrefix(".") && (try? aoiFile(named: $0)) != nil }.sorted()
    }
}
