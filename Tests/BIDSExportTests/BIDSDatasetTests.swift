import BIDSExport
import Foundation
import GazeModel
import JSONStream
import Testing
import TestSupport

/// The dataset the writer leaves on disk: names, run numbers, what a re-export touches, the
/// compressed tables as gzip reads them, and the refusals.
@Suite("BIDS dataset writer")
struct BIDSDatasetTests {
    static let labels = try! BIDSRunLabels(subject: "01", task: "reading")

    /// Every file under `root` (relative path → its bytes, inode and modification time).
    static func snapshot(_ root: String) throws -> [String: (bytes: Data, inode: UInt64, modified: Date)] {
        var files: [String: (Data, UInt64, Date)] = [:]
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root) {
            let path = "\(root)/\(relative)"
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            files[relative] = (try Data(contentsOf: URL(fileURLWithPath: path)),
                               (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0, attributes[.modificationDate] as! Date)
        }
        return files
    }

    /// The decompressed text of a `.tsv.gz`, read by the system's gzip.
    static func gunzip(_ path: String) throws -> String {
        let result = try Binary.runProcess("/usr/bin/env", ["gzip", "-dc", path])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test("a re-export adds the next run and leaves every file already there as it was")
    func reExportAddsRun() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.path("dataset")
        // Given a dataset whose description the researcher wrote, with one run of sub-01
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let description = #"{"Name": "Reading study", "BIDSVersion": "1.10.0", "Authors": ["A. Researcher"]}"# + "\n"
        try Data(description.utf8).write(to: URL(fileURLWithPath: "\(root)/dataset_description.json"))
        let first = try BIDSDataset(rootPath: root).add(ConstructedRecording.make(seconds: 4), as: Self.labels)
        let before = try Self.snapshot(root)
        // When a second recording is exported as the same subject and task
        let second = try BIDSDataset(rootPath: root).add(ConstructedRecording.make(seconds: 3, seed: 5), as: Self.labels)
        // Then it is run 2, its files are new, and every other file is untouched but scans.tsv, which gained its rows
        #expect(first.runNumber == 1 && second.runNumber == 2)
        #expect(second.files.allSatisfy { $0.contains("_run-2_") } && Set(second.files).isDisjoint(with: before.keys))
        let after = try Self.snapshot(root)
        let scans = "sub-01/sub-01_scans.tsv"
        for (name, file) in before where name != scans {
            #expect(after[name]?.bytes == file.bytes && after[name]?.inode == file.inode && after[name]?.modified == file.modified, "\(name)")
        }
        let scansText = String(decoding: after[scans]!.bytes, as: UTF8.self)
        #expect(scansText.hasPrefix(String(decoding: before[scans]!.bytes, as: UTF8.self)))
        #expect(scansText.split(separator: "\n").count == 1 + 3 + 3)
        #expect(Set(after.keys) == Set(before.keys).union(second.files))
        #expect(!after.keys.contains { $0.split(separator: "/").last!.hasPrefix(".") }, "a temporary file was left behind")
    }

    @Test("the runs of the dataset by the session they hold, under any subject and session label; none for no dataset")
    func runsBySessionID() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.path("dataset")
        #expect(BIDSDataset(rootPath: root).runsBySessionID().isEmpty)
        // Given two recordings, one under a BIDS session label
        let first = ConstructedRecording.make(seconds: 3, sessionID: "FIRST-SESSION")
        let second = ConstructedRecording.make(seconds: 2, seed: 5, sessionID: "SECOND-SESSION")
        try BIDSDataset(rootPath: root).add(first, as: Self.labels)
        try BIDSDataset(rootPath: root).add(second, as: try BIDSRunLabels(subject: "02", session: "lab1", task: "reading"))
        // Then each is found at its run, by the GazerecSessionID of its sidecars
        #expect(BIDSDataset(rootPath: root).runsBySessionID() == [
            "FIRST-SESSION": "sub-01/beh/sub-01_task-reading_run-1",
            "SECOND-SESSION": "sub-02/ses-lab1/beh/sub-02_ses-lab1_task-reading_run-1",
        ])
    }

    @Test("a new subject is added to participants.tsv under the researcher's own columns")
    func participantsKeepTheirColumns() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.path("dataset")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let table = "participant_id\tage\tsex\nsub-01\t34\tF\n"
        try Data(table.utf8).write(to: URL(fileURLWithPath: "\(root)/participants.tsv"))
        let dataset = BIDSDataset(rootPath: root)
        try dataset.add(ConstructedRecording.make(seconds: 2), as: try BIDSRunLabels(subject: "01", task: "reading"))
        try dataset.add(ConstructedRecording.make(seconds: 2), as: try BIDSRunLabels(subject: "02", session: "b", task: "reading"))
        let text = try String(contentsOfFile: "\(root)/participants.tsv", encoding: .utf8)
        #expect(text == table + "sub-02\tn/a\tn/a\n")
    }

    @Test("the physio tables are gzip files without a header, one row per sample, identical for identical data")
    func compressedTables() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let recording = ConstructedRecording.make(seconds: 3)
        let runs = try ["a", "b"].map { try BIDSDataset(rootPath: folder.path($0)).add(recording, as: Self.labels) }
        let gazeFile = runs[0].files.first { $0.hasSuffix("eye1_physio.tsv.gz") }!
        let text = try Self.gunzip(folder.path("a/\(gazeFile)"))
        let lines = text.split(separator: "\n")
        #expect(lines.count == recording.gaze.count)
        #expect(lines.allSatisfy { $0.split(separator: "\t").count == 4 && Double($0.split(separator: "\t")[0]) != nil })
        let sidecar = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: folder.path("a/\(gazeFile)")
            .replacingOccurrences(of: ".tsv.gz", with: ".json")))))
        #expect(sidecar["Columns"]?.arrayValue?.count == 4)
        for file in runs[0].files {
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("a/\(file)")))
                    == Data(contentsOf: URL(fileURLWithPath: folder.path("b/\(file)"))), "\(file)")
        }
        // A frame without a face has no values: n/a, as BIDS writes a missing value.
        let leftFile = runs[0].files.first { $0.hasSuffix("eye2_physio.tsv.gz") }!
        let missing = try Self.gunzip(folder.path("a/\(leftFile)")).split(separator: "\n").filter { $0.contains("\tmissing\t") }
        #expect(!missing.isEmpty || recording.frames.allSatisfy(\.hasFace))
        #expect(missing.allSatisfy { $0.split(separator: "\t")[1] == "n/a" })
    }

    @Test("expression samples become their own generic physio file, a row per sample with its frame's smile (n/a without one); without samples the run is as before, byte for byte")
    func expressionFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // (6 s: the frames from 5 s to 5.4 s have no face, and so no expression sample)
        let plain = ConstructedRecording.make(seconds: 6)
        let recording = ConstructedRecording.withExpressions(plain)
        let run = try BIDSDataset(rootPath: folder.path("a")).add(recording, as: Self.labels)
        let name = "sub-01/beh/sub-01_task-reading_run-1_recording-expressions_physio"
        #expect(run.files.suffix(2) == [name + ".tsv.gz", name + ".json"])
        let lines = try Self.gunzip(folder.path("a/\(name).tsv.gz")).split(separator: "\n")
        #expect(lines.count == recording.expressions.count && recording.expressions.count < recording.frames.count)
        let smile = Dictionary(uniqueKeysWithValues: recording.smile.map { ($0.timestampSeconds, $0.value) })
        for (line, sample) in zip(lines, recording.expressions) {
            let cells = line.split(separator: "\t").map(String.init)
            #expect(cells.count == 9)
            #expect(abs(Double(cells[0])! - (sample.timestampSeconds - recording.beginSeconds)) <= 0.6e-6)
            #expect(cells[1...7].map { Double($0) } == sample.probabilities.values.map { Optional($0) })
            #expect((cells[8] == "n/a" ? nil : Double(cells[8])) == smile[sample.timestampSeconds], "\(line)")
        }
        #expect(lines.contains { $0.hasSuffix("\tn/a") })
        let sidecar = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: folder.path("a/\(name).json")))))
        #expect(sidecar["PhysioType"] == .string("generic") && sidecar["RecordedEye"] == nil)
        #expect(sidecar["SamplingFrequency"] == .number(30) && sidecar["StartTime"] == .number(Double(lines[0].split(separator: "\t")[0])!))
        #expect(sidecar["Columns"] == .array((["timestamp"] + ExpressionName.allCases.map(\.rawValue) + ["smile"]).map { .string($0) }))
        #expect(sidecar["GazerecSessionID"] == .string(recording.sessionID))

        // The same recording without expression samples: the same files but that pair, byte for byte
        let without = try BIDSDataset(rootPath: folder.path("b")).add(plain, as: Self.labels)
        #expect(without.files == Array(run.files.dropLast(2)))
        for file in without.files {
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("a/\(file)")))
                    == Data(contentsOf: URL(fileURLWithPath: folder.path("b/\(file)"))), "\(file)")
        }
        // and scans.tsv lists the expression file too, acquired when the others were
        let scans = try ["a", "b"].map {
            try String(contentsOfFile: folder.path("\($0)/sub-01/sub-01_scans.tsv"), encoding: .utf8).split(separator: "\n").map(String.init)
        }
        let acquired = scans[1].last!.split(separator: "\t")[1]
        #expect(scans[0] == scans[1] + ["beh/sub-01_task-reading_run-1_recording-expressions_physio.tsv.gz\t\(acquired)"])
    }

    @Test("frames without gaze become the two eyes' recordings, eye1 and eye2, and need no screen geometry")
    func framesWithoutGaze() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var recording = ConstructedRecording.make(seconds: 2)
        recording.gaze = []
        recording.fixations = []
        recording.geometry = nil
        let run = try BIDSDataset(rootPath: folder.path("dataset")).add(recording, as: Self.labels)
        let eyes = try run.files.filter { $0.hasSuffix("_physio.json") }.sorted().map { name in
            try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: folder.path("dataset/\(name)")))))["RecordedEye"]
        }
        #expect(eyes == [.string("left"), .string("right")])
        #expect(run.files.contains { $0.hasSuffix("recording-eye1_physioevents.tsv.gz") })
    }

    @Test("a marker's label with a tab or a line break stays in its one cell")
    func markerLabelsStayInTheirCell() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var recording = ConstructedRecording.make(seconds: 2)
        recording.markers = [Marker(timestampSeconds: recording.beginSeconds + 1, label: "block\t2\nstart")]
        let run = try BIDSDataset(rootPath: folder.path("dataset")).add(recording, as: Self.labels)
        let events = try String(contentsOfFile: folder.path("dataset/\(run.files.first { $0.hasSuffix("_events.tsv") }!)"),
                                encoding: .utf8)
        #expect(events.split(separator: "\n") == ["onset\tduration\ttrial_type\tmarker_data", "1\t1\tblock 2 start\tn/a"])
    }

    @Test("refusals: a label BIDS cannot hold, on-screen gaze without the screen's size, nothing to write; nothing is created")
    func refusals() throws {
        for (subject, task) in [("01", "read ing"), ("sub-01", "reading"), ("", "reading"), ("01", "lesen-ä")] {
            #expect(throws: BIDSExportError.self) { try BIDSRunLabels(subject: subject, task: task) }
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var noGeometry = ConstructedRecording.make(seconds: 2)
        noGeometry.geometry = nil
        #expect(throws: BIDSExportError.screenGeometryUnknown(sessionID: noGeometry.sessionID)) {
            try BIDSDataset(rootPath: folder.path("dataset")).add(noGeometry, as: Self.labels)
        }
        var empty = ConstructedRecording.make(seconds: 2)
        empty.gaze = []
        empty.frames = []
        #expect(throws: BIDSExportError.nothingToExport(sessionID: empty.sessionID)) {
            try BIDSDataset(rootPath: folder.path("dataset")).add(empty, as: Self.labels)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("dataset")))
    }
}
