import BIDSExport
import Foundation
import GazeModel
import Testing
import TestSupport

/// A run whose session presented stimuli: `_events.tsv` gains a row per presentation onset and per
/// pause, seek and stall, with `stim_file` pointing into the dataset's `stimuli/` folder when the
/// file is there (matched by content) and `n/a` otherwise, and the validator still finds no error.
@Suite("BIDS events of presentations")
struct PresentationEventsTests {
    /// The constructed 20-second recording with the study's presentations of a file of `bytes`.
    static func recording(sha256: String) -> BIDSRecording {
        var recording = ConstructedRecording.make(seconds: 20)
        recording.presentations = StudyPresentations.presentations(begin: recording.beginSeconds, fileName: "clip.mkv", sha256: sha256)
        return recording
    }

    static func events(_ root: String, _ run: BIDSRun) throws -> [[String]] {
        let name = try #require(run.files.first { $0.hasSuffix("_events.tsv") })
        return try String(contentsOfFile: root + "/" + name, encoding: .utf8).split(separator: "\n")
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test("onset, pause, seek and stall rows in onset order; stim_file relative to stimuli/ only for a file found there by its content")
    func rows() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.path("dataset")
        try FileManager.default.createDirectory(atPath: root + "/stimuli/videos", withIntermediateDirectories: true)
        // The shown file under another name; a different file under the shown name.
        try Data("the stimulus's bytes".utf8).write(to: URL(fileURLWithPath: root + "/stimuli/videos/trailer v2.mkv"))
        try Data("other bytes".utf8).write(to: URL(fileURLWithPath: root + "/stimuli/clip.mkv"))
        let sha256 = String(try Binary.runProcess("/usr/bin/sha256sum", [root + "/stimuli/videos/trailer v2.mkv"]).stdout.prefix(64))
        let run = try BIDSDataset(rootPath: root).add(Self.recording(sha256: sha256), as: try BIDSRunLabels(subject: "01", task: "film"))
        let table = try Self.events(root, run)
        #expect(table[0] == ["onset", "duration", "trial_type", "marker_data", "stim_file", "presentation_event", "stimulus_seconds",
                             "from_stimulus_seconds", "stimulus_sha256"])
        let presented = table.dropFirst().filter { $0[5] != "n/a" }
        #expect(presented.map { [$0[0], $0[1], $0[2], $0[4], $0[5], $0[6], $0[7]] } == [
            ["0.5", "6", "clip", "videos/trailer v2.mkv", "onset", "0", "n/a"],
            ["6.5", "1", "blank", "n/a", "onset", "0", "n/a"],
            ["7.5", "8.5", "clip", "videos/trailer v2.mkv", "onset", "0", "n/a"],
            ["9.5", "1.5", "clip", "videos/trailer v2.mkv", "pause", "2", "n/a"],
            ["12", "0", "clip", "videos/trailer v2.mkv", "seek", "1", "3"],
            ["14", "0.5", "clip", "videos/trailer v2.mkv", "stall", "3", "n/a"],
        ])
        #expect(presented.filter { $0[2] == "clip" }.allSatisfy { $0[8] == sha256 })
        // The markers keep their rows, and every onset is in order.
        #expect(table.dropFirst().filter { $0[5] == "n/a" }.map { $0[2] } == ["stimulus A on", "stimulus B on"])
        let onsets = table.dropFirst().map { Double($0[0])! }
        #expect(onsets == onsets.sorted())

        // Without the file in stimuli/: no stim_file, the hash still names it.
        let bare = folder.path("bare")
        let other = try BIDSDataset(rootPath: bare).add(Self.recording(sha256: sha256), as: try BIDSRunLabels(subject: "01", task: "film"))
        #expect(try Self.events(bare, other).dropFirst().allSatisfy { $0[4] == "n/a" })
    }

    @Test("the BIDS schema validator finds no error in a run with presentations, with and without the stimulus file",
          .enabled(if: BIDSTools.installed, BIDSTools.missingReason))
    func validated() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for withFile in [true, false] {
            let root = folder.path(withFile ? "with" : "without")
            try FileManager.default.createDirectory(atPath: root + "/stimuli", withIntermediateDirectories: true)
            let file = root + "/stimuli/clip.mkv"
            try Data("the stimulus's bytes".utf8).write(to: URL(fileURLWithPath: file))
            let sha256 = String(try Binary.runProcess("/usr/bin/sha256sum", [file]).stdout.prefix(64))
            if !withFile { try FileManager.default.removeItem(atPath: root + "/stimuli") }
            try BIDSDataset(rootPath: root).add(Self.recording(sha256: sha256), as: try BIDSRunLabels(subject: "01", task: "film"))
            let issues = try BIDSToolTests.validate(root)
            let errors = issues.filter { $0.severity == "error" }
            #expect(errors.isEmpty, "\(errors.map { "\($0.code) at \($0.location)" })")
            let warnings = Set(issues.filter { $0.severity == "warning" }.map(\.code))
            #expect(warnings.isSubset(of: BIDSValidatorWarnings.researcherAdds), "\(warnings.subtracting(BIDSValidatorWarnings.researcherAdds).sorted())")
        }
    }
}
