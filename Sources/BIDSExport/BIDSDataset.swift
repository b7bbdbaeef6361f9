import Foundation
import GazeModel

/// An Eye-Tracking-BIDS dataset folder that recordings are added to, one run each.
///
/// `add` writes a run's files under `sub-<label>/[ses-<label>/]beh/`: the `_events.tsv`/`.json`
/// pair (markers, and the screen as `StimulusPresentation`), one `_physio.tsv.gz`/`.json` pair per
/// recorded signal — `recording-eye1` the gaze on the screen (cyclopean), then one per eye with
/// per-eye values in the frames (`RecordedEye` says which) — and the `_physioevents` pair of the
/// first; with expression samples, the `recording-expressions` pair (a generic physiological
/// recording: the expression probabilities and smile of the frames with a face). It creates
/// `dataset_description.json` when missing (and never changes one that is there), lists the
/// subject in `participants.tsv` and the physio files in the subject's `scans.tsv`. Adding to a
/// dataset takes the next free run number of the subject, session and task and leaves every
/// other file as it was. Each file is written atomically.
///
/// THREAD SAFETY: one writer per dataset at a time (two at once could choose the same run number).
public struct BIDSDataset: Sendable {
    /// The BIDS version new datasets declare.
    public static let bidsVersion = "1.10.1"

    /// The dataset's root folder (created when missing).
    public let rootPath: String
    /// The `Name` of a new dataset's `dataset_description.json`.
    public var name: String

    public init(rootPath: String, name: String = "Webcam eye-tracking sessions") {
        self.rootPath = rootPath
        self.name = name
    }

    /// Adds `recording` as the next run of `labels`' subject, session and task; returns what it wrote.
    @discardableResult
    public func add(_ recording: BIDSRecording, as labels: BIDSRunLabels) throws -> BIDSRun {
        let signals = PhysioRecording.signals(recording)
        guard !signals.isEmpty else { throw BIDSExportError.nothingToExport(sessionID: recording.sessionID) }
        if signals.contains(.gaze) && recording.geometry == nil {
            throw BIDSExportError.screenGeometryUnknown(sessionID: recording.sessionID)
        }
        try createFolder(rootPath)
        try writeDescriptionIfMissing(softwareVersion: recording.softwareVersion)
        let folder = "\(labels.subjectFolder)/beh"
        try createFolder("\(rootPath)/\(folder)")
        let run = try nextRunNumber(in: "\(rootPath)/\(folder)", labels: labels)
        let base = "\(folder)/\(labels.subjectPrefix)_task-\(labels.task)_run-\(run)"
        let scratch = try RunStaging(folder: "\(rootPath)/\(folder)")
        defer { scratch.remove() }
        var written: [String] = []
        try writeRun(recording, signals: signals, labels: labels, base: base) { name, bytes, compressed in
            let path = scratch.path(of: name)
            do {
                try compressed ? DatasetFile.writeCompressed(bytes, to: path) : DatasetFile.write(bytes, to: path)
            } catch BIDSExportError.io(let action, _, let reason) {
                // Said of the file in the dataset: the staging folder is gone by the time it is read.
                throw BIDSExportError.io(action: action, path: "\(rootPath)/\(name)", reason: reason)
            }
            scratch.holds(path)
            written.append(name)
        }
        try IndexFiles.addParticipant("sub-\(labels.subject)", to: "\(rootPath)/participants.tsv")
        let physioFiles = written.filter { $0.hasSuffix("_physio.tsv.gz") }
        try IndexFiles.addScans(physioFiles.map { String($0.dropFirst(labels.subjectFolder.count + 1)) },
                                at: recording.beginSeconds, to: "\(rootPath)/\(labels.subjectFolder)/\(labels.subjectPrefix)_scans.tsv")
        var moved: [String] = []
        for name in written {
            guard rename(scratch.path(of: name), "\(rootPath)/\(name)") == 0 else {
                let reason = String(cString: strerror(errno))
                for done in moved { unlink("\(rootPath)/\(done)") }
                throw BIDSExportError.io(action: "move into place", path: "\(rootPath)/\(name)", reason: reason)
            }
            moved.append(name)
        }
        return BIDSRun(runNumber: run, files: written)
    }

    /// The runs of the dataset that hold a gazerec session, by session id: each run's path relative to
    /// the root without its suffixes (`sub-01/beh/sub-01_task-reading_run-1`), found by the
    /// `GazerecSessionID` of its `_physio.json` files (runs written before that field are not known).
    /// An empty dictionary when the dataset does not exist yet.
    public func runsBySessionID() -> [String: String] {
        var runs: [String: String] = [:]
        guard let names = FileManager.default.enumerator(atPath: rootPath)?.allObjects as? [String] else { return runs }
        for name in names.sorted() where name.hasPrefix("sub-") && name.hasSuffix("_physio.json") && !name.contains("/.") {
            guard let data = FileManager.default.contents(atPath: "\(rootPath)/\(name)"),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let id = object["GazerecSessionID"] as? String, runs[id] == nil,
                  let end = name.range(of: "_recording-", options: .backwards) else { continue }
            runs[id] = String(name[..<end.lowerBound])
        }
        return runs
    }

    /// Writes the run's files through `write` (name relative to the root, bytes, gzip-compressed).
    private func writeRun(_ recording: BIDSRecording, signals: [PhysioRecording.Signal], labels: BIDSRunLabels, base: String,
                          write: (String, [UInt8], Bool) throws -> Void) throws {
        let stimuli = recording.presentations.contains { $0.sha256 != nil } ? StimuliFolder.files(root: rootPath) : [:]
        let events = recording.presentations.isEmpty ? EventTables.markers(recording) : EventTables.withPresentations(recording, stimuli: stimuli)
        try write("\(base)_events.tsv", events.text(header: true), false)
        try write("\(base)_events.json", SidecarJSON.bytes(Sidecars.events(events, task: labels.task, recording)), false)
        let detected = EventTables.detected(recording)
        for (index, signal) in signals.enumerated() {
            guard let physio = PhysioRecording.table(signal, recording) else { continue }
            let prefix = "\(base)_recording-eye\(index + 1)"
            try write("\(prefix)_physio.tsv.gz", physio.table.text(header: false), true)
            try write("\(prefix)_physio.json", SidecarJSON.bytes(Sidecars.physio(physio, task: labels.task, recording)), false)
            guard index == 0, !detected.rows.isEmpty else { continue }
            try write("\(prefix)_physioevents.tsv.gz", detected.text(header: false), true)
            try write("\(prefix)_physioevents.json", SidecarJSON.bytes(Sidecars.physioEvents(detected, task: labels.task)), false)
        }
        guard let expressions = ExpressionRecording(recording) else { return }
        let prefix = "\(base)_recording-\(ExpressionRecording.label)"
        try write("\(prefix)_physio.tsv.gz", expressions.table.text(header: false), true)
        try write("\(prefix)_physio.json", SidecarJSON.bytes(expressions.sidecar(task: labels.task, recording)), false)
    }

    private func writeDescriptionIfMissing(softwareVersion: String) throws {
        let path = "\(rootPath)/dataset_description.json"
        guard !FileManager.default.fileExists(atPath: path) else { return }
        try DatasetFile.write(SidecarJSON.bytes(Sidecars.datasetDescription(name: name, softwareVersion: softwareVersion)), to: path)
    }

    private func createFolder(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw BIDSExportError.io(action: "create the folder", path: path, reason: (error as NSError).localizedDescription)
        }
    }

    /// One more than the highest run of the subject, session and task in `folder` (1 for the first).
    private func nextRunNumber(in folder: String, labels: BIDSRunLabels) throws -> Int {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw BIDSExportError.io(action: "list", path: folder, reason: (error as NSError).localizedDescription)
        }
        let prefix = "\(labels.subjectPrefix)_task-\(labels.task)_run-"
        let runs = names.compactMap { name -> Int? in
            guard name.hasPrefix(prefix) else { return nil }
            return Int(name.dropFirst(prefix.count).prefix { $0.isASCII && $0.isNumber })
        }
        return (runs.max() ?? 0) + 1
    }
}

/// What `BIDSDataset.add` wrote: the run's number and its files (paths relative to the dataset's root).
public struct BIDSRun: Sendable, Equatable {
    public var runNumber: Int
    public var files: [String]
}
