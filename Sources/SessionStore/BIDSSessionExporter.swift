import BIDSExport
import GazeAnalysis
import GazeModel
import GRDB

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
    public var subject: BIDSSubjectSource
    /// The BIDS session label (`ses-<label>`), if any.
    public var sessionLabel: String?
    public var task: String
    /// The screen's physical size and the viewing distance, for every session (over its calibration's).
    public var viewing: ViewingDistances?

    public init(dataset: BIDSDataset, subject: BIDSSubjectSource, sessionLabel: String? = nil, task: String,
                viewing: ViewingDistances? = nil) {
        self.dataset = dataset
        self.subject = subject
        self.sessionLabel = sessionLabel
        self.task = task
        self.viewing = viewing
    }

    /// Adds each session (ids or unambiguous prefixes, in order) as the next run of its subject,
    /// calling `written` after each run; returns the runs written. A session already in the dataset
    /// (`BIDSDataset.runsBySessionID`) is not written again unless `again`: `skipped` is called
    /// with its id and its run there (`sub-01/beh/sub-01_task-reading_run-1`) instead.
    @discardableResult
    public func export(ids: [String], from database: SessionDatabase, again: Bool = false,
                       skipped: (_ sessionID: String, _ run: String) -> Void = { _, _ in },
                       written: (BIDSExportedRun) -> Void = { _ in }) throws -> [BIDSExportedRun] {
        let planned = try ids.map { try plan(id: $0, database) }
        let present = again ? [:] : dataset.runsBySessionID()
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

    /// Checks that a session can be written: its labels, something to write, the screen for its gaze.
    private func plan(id: String, _ database: SessionDatabase) throws -> PlannedRun {
        try database.read("read session \(id)") { db in
            let rowid = try database.sessionRowID(db, id: id)
            let header = try SessionTable.header(db, rowid: rowid)
            let label: String
            switch subject {
            case .label(let given): label = given
            case .appID:
                guard let derived = BIDSSubjectSource.label(fromAppID: header.appID) else {
                    throw BIDSExportError.noSubjectLabel(sessionID: header.id, appID: header.appID)
                }
                label = derived
            }
            let labels = try BIDSRunLabels(subject: label, session: sessionLabel, task: task)
            let gazeCount = try GazeSampleTable.span(db, sessionRowID: rowid).count
            var eyeValues = false
            try FrameTable.forEachOpenness(db, sessionRowID: rowid) { eyeValues = eyeValues || $0.openness(.left) != nil
                || $0.openness(.right) != nil }
            guard gazeCount > 0 || eyeValues else {
                throw BIDSExportError.nothingToExport(sessionID: header.id)
            }
            if gazeCount > 0 && geometry(header) == nil {
                throw BIDSExportError.screenGeometryUnknown(sessionID: header.id)
            }
            return PlannedRun(sessionID: header.id, labels: labels)
        }
    }

    /// The screen's geometry for a session: `viewing` when given, else its calibration's, on the session's screen.
    func geometry(_ header: SessionHeader) -> ScreenGeometry? {
        let distances = viewing ?? header.gazerecExtension?.calibration?.viewing
        return distances?.geometry(widthPoints: header.deviceInfo.screenWidth, heightPoints: header.deviceInfo.screenHeight)
    }

    /// A stored session as a BIDS recording, read in one transaction.
    public func recording(id: String, from database: SessionDatabase) throws -> BIDSRecording {
        try database.read("read session \(id)") { db in
            let rowid = try database.sessionRowID(db, id: id)
            let header = try SessionTable.header(db, rowid: rowid)
            let frames: [FrameMeasurement]
            do {
                frames = try Self.framesWithoutAppearance(db, sessionRowID: rowid)
            } catch let error as FrameColumnError {
                throw StoreError.database(action: "read the frames of session \(header.id)", path: database.path, reason: error.reason)
            }
            let gaze = try GazeSampleTable.samples(db, sessionRowID: rowid)
            let geometry = geometry(header)
            let detector = header.fixationScale(given: viewing.map {
                $0.geometry(widthPoints: header.deviceInfo.screenWidth, heightPoints: header.deviceInfo.screenHeight)
            }).defaultDetector
            let facts = header.gazerecExtension?.recorder
            var expressions: [ExpressionSample] = []
            try ExpressionTable.forEachSample(db, sessionRowID: rowid) { expressions.append($0) }
            return BIDSRecording(
                sessionID: header.id, appID: header.appID, beginSeconds: header.beginTimeSeconds,
                endSeconds: header.endTimeSeconds, screenWidthPoints: header.deviceInfo.screenWidth,
                screenHeightPoints: header.deviceInfo.screenHeight, geometry: geometry,
                deviceModel: header.deviceInfo.model, softwareVersion: facts?.version ?? GazerecVersion.current,
                otherRecordingSystem: facts == nil ? Self.system(header.deviceInfo) : nil,
                nominalFramesPerSecond: facts.map { $0.grantedFramesPerSecond ?? $0.requestedFramesPerSecond },
                calibration: Self.calibration(header.gazerecExtension), gaze: gaze, frames: frames,
                blinks: try BlinkTable.records(db, sessionRowID: rowid).compactMap(\.event),
                markers: try MarkerTable.markers(db, sessionRowID: rowid),
                fixations: gaze.isEmpty ? [] : detector.detect(gaze).fixations, expressions: expressions,
                smile: expressions.isEmpty ? [] : try ExpressionReader.smile(db, sessionRowID: rowid))
        }
    }

    /// A session's frames in order without their eye appearance, which BIDS has no place for and
    /// which would only fill memory; throws `FrameColumnError` as `FrameTable.frames` does.
    static func framesWithoutAppearance(_ db: Database, sessionRowID: Int64) throws -> [FrameMeasurement] {
        let rows = try Row.fetchCursor(try FrameTable.makeOrderedStatement(db, appearance: false), arguments: [sessionRowID])
        let optional = 3..<(3 + FrameTable.optionalColumns.count)
        var frames: [FrameMeasurement] = []
        while let row = try rows.next() {
            do {
                frames.append(try FrameTable.frame(timestamp: row[0], state: row[1], confidence: row[2],
                                                   optional: optional.map { row[$0] }))
            } catch var error as FrameColumnError {
                error.reason = "frame \(frames.count): \(error.reason)"
                throw error
            }
        }
        return frames
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
