import GazeModel
import GRDB

/// A session's time-stamped recordings, read in one transaction: what the analyses over stimuli
/// (and any per-time analysis) need.
public struct RecordedStreams: Sendable {
    public var header: SessionHeader
    /// The scan path in recorded order (screen points).
    public var gaze: [GazeSample]
    public var blinks: [BlinkEvent]
    /// Markers in the order they were added.
    public var markers: [Marker]
    public var expressions: [ExpressionSample]
    /// The smile (mean of `mouthSmile_L` and `mouthSmile_R`) at each frame time that has one, in time order.
    public var smile: [(timestampSeconds: Double, value: Double)]
}

extension SessionDatabase {
    /// A session's header, scan path, blinks, markers, expressions and smile; throws
    /// `StoreError.damagedSession` for a session whose stored rows are not whole, checked in the
    /// same read transaction (the analyses over stimuli read this, and refuse what `show` refuses).
    public func recordedStreams(id: String) throws -> RecordedStreams {
        try readVerifying("read session \(id)") { db in
            let rowid = try sessionRowID(db, id: id)
            try Self.verifying(db, id: try SessionTable.id(db, rowid: rowid, naming: id), sessionRowID: rowid) { [:] }
            var blinks: [BlinkEvent] = [], expressions: [ExpressionSample] = []
            try BlinkTable.forEachEvent(db, sessionRowID: rowid) { blinks.append($0) }
            try ExpressionTable.forEachSample(db, sessionRowID: rowid) { expressions.append($0) }
            return RecordedStreams(header: try SessionTable.header(db, rowid: rowid),
                                   gaze: try GazeSampleTable.samples(db, sessionRowID: rowid), blinks: blinks,
                                   markers: try MarkerTable.markers(db, sessionRowID: rowid), expressions: expressions,
                                   smile: try ExpressionReader.smile(db, sessionRowID: rowid))
        }
    }
}
