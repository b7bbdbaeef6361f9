import Foundation

/// The dataset's index tables that runs are added to: `participants.tsv` and a subject's `scans.tsv`.
///
/// A row is appended (the file rewritten atomically); rows already there and columns the
/// researcher added stay as they were, the new row holding `n/a` in columns it has no value for.
enum IndexFiles {
    /// Lists `participant` (`sub-<label>`) in `participants.tsv` unless it is there already.
    static func addParticipant(_ participant: String, to path: String) throws {
        guard let text = try read(path) else {
            try DatasetFile.write(Array("participant_id\n\(participant)\n".utf8), to: path)
            return
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard let header = lines.first, header.split(separator: "\t").first == "participant_id" else {
            throw BIDSExportError.malformedDatasetFile(path: path, reason: "its first line is not a header starting with participant_id")
        }
        if lines.dropFirst().contains(where: { $0.split(separator: "\t").first.map(String.init) == participant }) { return }
        try append([participant], under: header, to: text, path: path)
    }

    /// Lists `files` (relative to the subject's or session's folder) with their acquisition time in `scans.tsv`.
    static func addScans(_ files: [String], at unixSeconds: Double, to path: String) throws {
        let time = acquisitionTime(unixSeconds)
        guard let text = try read(path) else {
            try DatasetFile.write(Array(("filename\tacq_time\n" + files.map { "\($0)\t\(time)\n" }.joined()).utf8), to: path)
            return
        }
        guard let header = text.split(separator: "\n").first, header.split(separator: "\t").first == "filename" else {
            throw BIDSExportError.malformedDatasetFile(path: path, reason: "its first line is not a header starting with filename")
        }
        let columns = header.split(separator: "\t").map(String.init)
        var updated = text
        for file in files {
            let row = columns.map { $0 == "filename" ? file : $0 == "acq_time" ? time : "n/a" }
            updated = appending(row, to: updated)
        }
        try DatasetFile.write(Array(updated.utf8), to: path)
    }

    private static func append(_ cells: [String], under header: Substring, to text: String, path: String) throws {
        let width = header.split(separator: "\t").count
        let row = cells + Array(repeating: "n/a", count: max(0, width - cells.count))
        try DatasetFile.write(Array(appending(row, to: text).utf8), to: path)
    }

    private static func appending(_ row: [String], to text: String) -> String {
        (text.hasSuffix("\n") || text.isEmpty ? text : text + "\n") + row.joined(separator: "\t") + "\n"
    }

    private static func read(_ path: String) throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BIDSExportError.io(action: "read", path: path, reason: "the file cannot be read")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `YYYY-MM-DDThh:mm:ss.ffffffZ` in UTC: BIDS's date-time form.
    static func acquisitionTime(_ unixSeconds: Double) -> String {
        var seconds = time_t(unixSeconds.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let micro = Int(((unixSeconds - unixSeconds.rounded(.down)) * 1_000_000).rounded())
        let date = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                          parts.tm_hour, parts.tm_min, parts.tm_sec)
        return date + String(format: ".%06dZ", min(micro, 999_999))
    }
}
