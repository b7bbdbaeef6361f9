import BIDSExport
import GazeAnalysis
import GazeModel
import SessionStore

/// Where a session's BIDS subject label comes from: one label for every session, or a rule over the session.
public enum BIDSSubjectSource: Sendable, Equatable {
    /// This label for every session.
    case label(String)
    /// The session's app id with every character but the ASCII letters and digits left out
    /// (`reading-study 01` → `readingstudy01`).
    case appID

    /// The subject label `appID` gives a session with this app id; nil when nothing would remain.
    public static func label(fromAppID appID: String) -> String? {
        let kept = String(String.UnicodeScalarView(appID.unicodeScalars.filter {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
        }))
        return kept.isEmpty ? nil : kept
    }
}

/// One session written as a BIDS run: which session, under which labels, and the files of the run.
public struct BIDSExportedRun: Sendable, Equatable {
    public var sessionID: String
    public var labels: BIDSRunLabels
    public var run: BIDSRun
}

/// Stored sessions written into an Eye-Tracking-BIDS dataset, one run each (the BIDS export use case).
///
/// Each session is read in one read transaction into a `BIDSRecording`: its scan path (gaze on
/// the screen), its frames (each eye's values and the head pose), its expression samples with the
/// smile of their frames (when recorded with expressions), its blinks and markers, and
/// fixations found in the scan path by the default I-DT detector in degrees of the session's
/// screen; the screen's size and distance from `viewing` when given, else from the calibration
/// that mapped the gaze; that calibration (one, its number of targets, its accuracy in degrees)
/// from the session's extension object. A session without the recorder's facts there (an
/// imported one) is named as recorded by its device's system. Every session's labels and screen
/// are checked before the first run is written, so a refusal leaves the dataset as it was. A session
/// already in the dataset is skipped unless asked to export it again.
public struct BIDSSessionExporter: Sendable {
    public var dataset: BIDSDataset
    /// The runs' labels and screen, and whether a session already there is written again.
    public var runs: BIDSRunOptions

    public init(dataset: BIDSDataset, runs: BIDSRunOptions) {
        self.dataset = dataset
        self.runs = runs
    }

    /// Adds each session (ids or unambiguous prefixes, in order) as the next run of its subject,
    /// calling `written` after each run; returns the runs written. A session already in the dataset
    /// (`BIDSDataset.runsBySessionID`) is not written again unless `runs.again`: `skipped` is called
    /// with its id and its run there (`sub-01/beh/sub-01_task-reading_run-1`) instead.
    @discardableResult
    public func export(ids: [String], from database: SessionDatabase,
                       skipped: (_ sessionID: String, _ run: String) -> Void = { _, _ in },
                       written: (BIDSExportedRun) -> Void = { _ in }) throws -> [BIDSExportedRun] {
        let planned = try ids.map { try plan(id: $0, database) }
        let present = runs.again ? [:] : dataset.runsBySessionID()
        let fresh = planned.filter { entry in
            guard let run = present[entry.sessionID] else { return true }
            skipped(entry.sessionID, run)
            return false
        }
        return try fresh.map { entry in
            let recording = try self.recording(id: entry.sessionID, from: database)
            let exported = BIDSExportedRun(sessionID: entry.sessionID, labels: entry.labels,
                                           run: try dataset.add(recording, as: entry.labels))
            written(exported)
            return exported
        }
    }

    /// A session checked before anything is written: its full id and labels.
    private struct PlannedRun {
        var sessionID: String
        var labels: BIDSRunLabels
    }

    /// Checks that a session can be written: whole and sound as every other export requires
    /// (`SessionDatabase.verify`, so a damaged session is refused before any run is written), its
    /// labels, something to write, the screen for its gaze.
    private func plan(id: String, _ database: SessionDatabase) throws -> PlannedRun {
        try database.verify(id: id)
        let outline = try database.outline(id: id)
        let header = outline.header
        let label: String
        switch runs.subject {
        case .label(let given): label = given
        case .appID:
            guard let derived = BIDSSubjectSource.label(fromAppID: header.appID) else {
                throw BIDSExportError.noSubjectLabel(sessionID: header.id, appID: header.appID)
            }
            label = derived
        }
        let labels = try BIDSRunLabels(subject: label, session: runs.sessionLabel, task: runs.task)
        guard outline.gazeSampleCount > 0 || outline.hasEyeValues else {
            throw BIDSExportError.nothingToExport(sessionID: header.id)
        }
        if outline.gazeSampleCount > 0 && geometry(header) == nil {
            throw BIDSExportError.screenGeometryUnknown(sessionID: header.id)
        }
        return PlannedRun(sessionID: header.id, labels: labels)
    }

    /// The screen's geometry for a session: `viewing` when given, else its calibration's, on the session's screen.
    func geometry(_ header: SessionHeader) -> ScreenGeometry? {
        let distances = runs.viewing ?? header.gazerecExtension?.calibration?.viewing
        return distances?.geometry(widthPoints: header.deviceInfo.screenWidth, heightPoints: header.deviceInfo.screenHeight)
    }

    /// A stored session as a BIDS recording, read in one transaction (`SessionDatabase.storedSession`).
    public func recording(id: String, from database: SessionDatabase) throws -> BIDSRecording {
        let stored = try database.storedSession(id: id)
        let header = stored.header
        let detector = header.fixationScale(given: runs.viewing.map {
            $0.geometry(widthPoints: header.deviceInfo.screenWidth, heightPoints: header.deviceInfo.screenHeight)
        }).defaultDetector
        let facts = header.gazerecExtension?.recorder
        var recording = BIDSRecording(
            sessionID: header.id, appID: header.appID, beginSeconds: header.beginTimeSeconds,
            endSeconds: header.endTimeSeconds, screenWidthPoints: header.deviceInfo.screenWidth,
            screenHeightPoints: header.deviceInfo.screenHeight, geometry: geometry(header),
            deviceModel: header.deviceInfo.model, softwareVersion: facts?.version ?? GazerecVersion.current,
            otherRecordingSystem: facts == nil ? Self.system(header.deviceInfo) : nil,
            nominalFramesPerSecond: facts.map { $0.grantedFramesPerSecond ?? $0.requestedFramesPerSecond },
            calibration: Self.calibration(header.gazerecExtension), gaze: stored.gaze, frames: stored.frames,
            blinks: stored.blinks, markers: stored.markers,
            fixations: stored.gaze.isEmpty ? [] : detector.detect(stored.gaze).fixations, expressions: stored.expressions,
            smile: stored.smile)
        recording.presentations = stored.presentations
        return recording
    }

    /// A system's name and version (`iOS 13.5.1`), for a session gazerec did not record.
    static func system(_ device: DeviceInfo) -> String {
        let named = [device.systemName, device.systemVersion].filter { !$0.isEmpty }.joined(separator: " ")
        return named.isEmpty ? "unknown" : named
    }

    /// The calibration that mapped the session's gaze, when one did: one calibration of its
    /// targets, with its validation accuracy in degrees when measured.
    static func calibration(_ gazerecExtension: SessionExtension?) -> BIDSCalibration? {
        guard gazerecExtension?.calibrationApplied == true, let reference = gazerecExtension?.calibration else { return nil }
        return BIDSCalibration(count: 1, type: "\(reference.points)-point", averageErrorDegrees: reference.accuracyDegrees)
    }
}

/// The labels and screen of the runs a BIDS export adds (`SessionExport.Format.bids`); the
/// dataset is the export's destination folder.
public struct BIDSRunOptions: Sendable {
    public var subject: BIDSSubjectSource
    /// The BIDS session label (`ses-<label>`), if any.
    public var sessionLabel: String?
    public var task: String
    /// The screen's physical size and the viewing distance, for every session (over its calibration's).
    public var viewing: ViewingDistances?
    /// Whether a session already in the dataset is written again as a new run (else it is skipped).
    public var again: Bool

    public init(subject: BIDSSubjectSource, sessionLabel: String? = nil, task: String, viewing: ViewingDistances? = nil,
                again: Bool = false) {
        self.subject = subject
        self.sessionLabel = sessionLabel
        self.task = task
        self.viewing = viewing
        self.again = again
    }

    /// The exporter of these runs into the dataset at `root`.
    func exporter(root: String) -> BIDSSessionExporter { BIDSSessionExporter(dataset: BIDSDataset(rootPath: root), runs: self) }
}
