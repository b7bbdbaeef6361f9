import Foundation
import GazeAnalysis
import GazeModel
import GRDB

extension SessionDatabase {
    /// A session's attention figures (`"gazerec"."attention"`), nil when it has no frames.
    public func attention(id: String) throws -> AttentionReport? {
        try read("read the attention figures of session \(id)") { db in
            try AttentionReader.report(db, sessionRowID: try sessionRowID(db, id: id))
        }
    }
}

/// A session's attention figures from its stored frames, scan path, blink events and markers.
enum AttentionReader {
    /// The figures, in one pass over each table (flat memory: a row at a time); nil when the
    /// session row is gone.
    static func report(_ db: Database, sessionRowID: Int64) throws -> AttentionReport? {
        guard let session = try SessionTable.screenAndEnd(db, rowid: sessionRowID) else { return nil }
        var accumulator = AttentionAccumulator(markers: try MarkerTable.markers(db, sessionRowID: sessionRowID),
                                               screenWidth: session.width, screenHeight: session.height)
        try FrameTable.forEachOpenness(db, sessionRowID: sessionRowID) { accumulator.add($0) }
        try GazeSampleTable.forEachPosition(db, sessionRowID: sessionRowID) { timestamp, x, y in
            accumulator.add(GazeSample(timestampSeconds: timestamp, x: x, y: y, orientation: 0, trackingState: .normal))
        }
        try BlinkTable.forEachEvent(db, sessionRowID: sessionRowID) { accumulator.add($0) }
        return accumulator.report(endSeconds: session.end)
    }
}
