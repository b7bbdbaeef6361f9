import Foundation
import GazeModel
import GRDB

/// What one recorder flush appends to its session.
public struct SampleBatchToAppend: Sendable {
    public var gaze: [GazeSample] = []
    /// Blend-shape name → samples.
    public var blendShapes: [String: [BlendShapeSample]] = [:]
    public var frames: [FrameMeasurement] = []
    public var blinks: [BlinkEvent] = []
    /// The expression probabilities of frames with a face (a recording asked for them).
    public var expressions: [ExpressionSample] = []
    /// Presentations to record as they now stand (`SessionWriter.record(presentation:)`), in the
    /// batch's transaction: each inserted, or replacing the stored one of its index.
    public var presentations: [Presentation] = []

    public init() {}

    public var isEmpty: Bool {
        gaze.isEmpty && frames.isEmpty && blinks.isEmpty && expressions.isEmpty && presentations.isEmpty
            && blendShapes.values.allSatisfy(\.isEmpty)
    }
}

/// Appends a recording's samples to its session as it goes, one transaction per flush.
///
/// The session row exists (without `endTime`) from `begin` on, so a reader — or a crash — always
/// finds a readable prefix. `close` sets `endTime` and the final extension object.
/// One writer per session, used from one thread.
public final class SessionWriter {
    public let database: SessionDatabase
    public let sessionID: String
    private let sessionRowID: Int64
    private var seriesRowIDs: [String: Int64] = [:]
    // Touched for every sample, from the one thread that owns this writer: no run-time exclusivity checks.
    @exclusivity(unchecked) private var nextSeq: [String: Int] = [:]
    @exclusivity(unchecked) public private(set) var lastTimestamp: Double?
    /// What this writer stored of each presentation's logs (advanced only when a write committed).
    private var presentationLogs = PresentationTable.Logs()

    /// Creates the session row and its blend-shape series.
    public init(database: SessionDatabase, header: SessionHeader, blendShapeNames: [String], recorderPID: Int32) throws {
        self.database = database
        sessionID = header.id
        var series: [String: Int64] = [:]
        sessionRowID = try database.write("start session \(header.id)") { db in
            let rowid = try SessionTable.insertRecording(db, header: header, recorderPID: recorderPID)
            for name in blendShapeNames {
                series[name] = try BlendShapeTable.insertSeries(db, sessionRowID: rowid, name: name)
            }
            return rowid
        }
        seriesRowIDs = series
    }

    /// Appends one batch in one transaction.
    public func append(_ batch: SampleBatchToAppend) throws {
        guard !batch.isEmpty else { return }
        var logs = presentationLogs
        try database.write("record samples") { db in
            for sample in batch.gaze {
                try GazeSampleTable.insert(db, sample, sessionRowID: sessionRowID, seq: take("gaze"))
            }
            for (name, samples) in batch.blendShapes {
                guard let series = seriesRowIDs[name] else { continue }
                for sample in samples {
                    try BlendShapeTable.insert(db, sample, seriesRowID: series, seq: take("blend:" + name))
                }
            }
            for frame in batch.frames {
                try FrameTable.insert(db, frame, sessionRowID: sessionRowID, seq: take("frame"))
                lastTimestamp = frame.timestampSeconds
            }
            for event in batch.blinks {
                try BlinkTable.insert(db, event, sessionRowID: sessionRowID, seq: take("blink"))
            }
            for sample in batch.expressions {
                try ExpressionTable.insert(db, sample, sessionRowID: sessionRowID, seq: take("expression"))
            }
            logs = try record(db, batch.presentations, logs: logs)
        }
        presentationLogs = logs
    }

    /// Records a presentation as it now stands, in its own transaction: inserted, or replacing the
    /// stored one of the same `index` (call it at the onset, as it goes on, and at its end).
    ///
    /// `index` is 0 for the session's first presentation and at most one more than the largest
    /// recorded so far (a gap is refused). Its `events` and `playback` are logs that only grow:
    /// each call carries the ones passed before first, and only those beyond them are written.
    public func record(presentation: Presentation) throws {
        var logs = presentationLogs
        try database.write("record presentation \(presentation.index) of session \(sessionID)") { db in
            logs = try record(db, [presentation], logs: logs)
        }
        presentationLogs = logs
    }

    private func record(_ db: Database, _ presentations: [Presentation], logs: PresentationTable.Logs) throws -> PresentationTable.Logs {
        var logs = logs
        for presentation in presentations {
            logs = try PresentationTable.record(db, presentation, sessionRowID: sessionRowID, logs: logs)
        }
        return logs
    }

    private func take(_ series: String) -> Int {
        let seq = nextSeq[series, default: 0]
        nextSeq[series] = seq + 1
        return seq
    }

    /// Ends the session: `endTime` and the final extension object, in one transaction.
    public func close(endTimeSeconds: Double, gazerecExtension: SessionExtension?) throws {
        try database.write("close session \(sessionID)") { db in
            try SessionTable.close(db, rowid: sessionRowID, endTimeSeconds: endTimeSeconds, gazerecExtension: gazerecExtension)
            try SeriesLengthTable.store(db, sessionRowID: sessionRowID, replacing: false)
        }
    }
}
