import Foundation
import GazeModel
import GRDB

extension SessionDatabase {
    /// Session `id`'s outline (`StoredSessionOutline`), read in one transaction.
    public func outline(id: String) throws -> StoredSessionOutline {
        try read("read session \(id)") { db in
            let rowid = try sessionRowID(db, id: id)
            var outline = StoredSessionOutline(header: try SessionTable.header(db, rowid: rowid),
                                               gazeSampleCount: try GazeSampleTable.span(db, sessionRowID: rowid).count,
                                               hasEyeValues: false)
            try FrameTable.forEachOpenness(db, sessionRowID: rowid) { frame in
                outline.hasEyeValues = outline.hasEyeValues || frame.openness(.left) != nil || frame.openness(.right) != nil
            }
            return outline
        }
    }

    /// Session `id`'s series read whole in one transaction (`StoredSession`); a frame that cannot
    /// be read is a `StoreError.database` naming it.
    public func storedSession(id: String) throws -> StoredSession {
        try read("read session \(id)") { db in
            let rowid = try sessionRowID(db, id: id)
            let header = try SessionTable.header(db, rowid: rowid)
            var expressions: [ExpressionSample] = []
            try ExpressionTable.forEachSample(db, sessionRowID: rowid) { expressions.append($0) }
            return StoredSession(
                header: header, gaze: try GazeSampleTable.samples(db, sessionRowID: rowid),
                frames: try framesWithoutAppearance(db, sessionRowID: rowid, id: header.id),
                blinks: try BlinkTable.records(db, sessionRowID: rowid).compactMap(\.event),
                markers: try MarkerTable.markers(db, sessionRowID: rowid), expressions: expressions,
                smile: expressions.isEmpty ? [] : try ExpressionReader.smile(db, sessionRowID: rowid),
                presentations: try PresentationTable.presentations(db, sessionRowID: rowid))
        }
    }

    /// Session `id`'s frames in order without their eye appearance, which writers of whole sessions
    /// have no place for and which would only fill memory.
    private func framesWithoutAppearance(_ db: Database, sessionRowID: Int64, id: String) throws -> [FrameMeasurement] {
        let rows = try Row.fetchCursor(try FrameTable.makeOrderedStatement(db, appearance: false), arguments: [sessionRowID])
        let optional = 3..<(3 + FrameTable.optionalColumns.count)
        var frames: [FrameMeasurement] = []
        while let row = try rows.next() {
            do {
                frames.append(try FrameTable.frame(timestamp: row[0], state: row[1], confidence: row[2],
                                                   optional: optional.map { row[$0] }))
            } catch let error as FrameColumnError {
                throw StoreError.database(action: "read the frames of session \(id)", path: path,
                                          reason: "frame \(frames.count): \(error.reason)")
            }
        }
        return frames
    }
}

/// A session's stored series read whole, for writers that need them all at once (an
/// Eye-Tracking-BIDS run): its header, scan path, frames (without their eye appearance, which
/// would only fill memory), blink events, markers, expression samples, smile and presentations.
public struct StoredSession: Sendable {
    public var header: SessionHeader
    /// The scan path, in time order.
    public var gaze: [GazeSample]
    /// The frames in order, without their eye appearance.
    public var frames: [FrameMeasurement]
    public var blinks: [BlinkEvent]
    public var markers: [Marker]
    public var expressions: [ExpressionSample]
    /// The smile at each frame time that has one (`SessionDatabase.smile(id:)`); empty without expression samples.
    public var smile: [(timestampSeconds: Double, value: Double)]
    /// What the presenter showed, in the order shown (empty for a recording without): a frame's
    /// stimulus and position in it are `presentations.showing(at:)` and `stimulusSeconds(at:)`.
    public var presentations: [Presentation] = []
}

/// What a writer checks of a session before writing anything: its header and whether it holds
/// gaze samples or per-eye frame values.
public struct StoredSessionOutline: Sendable {
    public var header: SessionHeader
    public var gazeSampleCount: Int
    /// Whether some frame has an eye's openness.
    public var hasEyeValues: Bool
}
