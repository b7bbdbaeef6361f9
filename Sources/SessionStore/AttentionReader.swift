import Foundation
import GazeAnalysis
import GazeModel
import GRDB
import GRDBSQLite
import JSONStream

extension SessionDatabase {
    /// A session's attention figures (`"gazerec"."attention"`), nil when it has no frames.
    public func attention(id: String) throws -> AttentionReport? {
        try guarded("read the attention figures of session \(id)") {
            try writer.read { db in
                guard let rowid = try Self.rowid(db, id: id) else { throw StoreError.unknownSession(id: id, databasePath: path) }
                return try Self.attention(db, sessionRowID: rowid)
            }
        }
    }

    /// The figures from the stored frames, scan path, blink events and markers, in one pass over
    /// each table (flat memory: a row at a time).
    static func attention(_ db: Database, sessionRowID: Int64) throws -> AttentionReport? {
        guard let session = try Row.fetchOne(db, sql: "SELECT screenWidth, screenHeight, endTime FROM session WHERE rowid = ?",
                                             arguments: [sessionRowID]) else { return nil }
        var accumulator = AttentionAccumulator(markers: try SampleTables.markers(db, sessionRowID: sessionRowID),
                                               screenWidth: session[0], screenHeight: session[1])
        let frames = try Row.fetchCursor(db, sql: """
            SELECT timestamp, trackingState, opennessLeft, opennessRight FROM frameSample WHERE sessionRowID = ? ORDER BY seq
            """, arguments: [sessionRowID])
        while let row = try frames.next() {
            let state = TrackingState(rawValue: row[1]) ?? .missing
            accumulator.add(FrameMeasurement(timestampSeconds: row[0], trackingState: state, confidence: 0,
                                             opennessLeft: row[2], opennessRight: row[3]))
        }
        let gaze = try Row.fetchCursor(db, sql: "SELECT timestamp, x, y FROM gazeSample WHERE sessionRowID = ? ORDER BY seq",
                                       arguments: [sessionRowID])
        while let row = try gaze.next() {
            accumulator.add(GazeSample(timestampSeconds: row[0], x: row[1], y: row[2], orientation: 0, trackingState: .normal))
        }
        let blinks = try Row.fetchCursor(db, sql: """
            SELECT start, end, eyes, kind, minimumOpenness FROM blinkEvent WHERE sessionRowID = ? ORDER BY seq
            """, arguments: [sessionRowID])
        while let row = try blinks.next() {
            guard let eyes = BlinkEyes(rawValue: row[2]), let kind = BlinkEvent.Kind(rawValue: row[3]) else { continue }
            accumulator.add(BlinkEvent(startSeconds: row[0], endSeconds: row[1], eyes: eyes, kind: kind, minimumOpenness: row[4]))
        }
        return accumulator.report(endSeconds: session[2])
    }
}

extension AttentionFigures {
    /// The figures' members: frames, faceShare, onScreenShare (with gaze), then the eye figures.
    var jsonMembers: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("frames", .number(Double(frames))), ("faceShare", .number(faceShare))]
        if let onScreenShare { members.append(("onScreenShare", .number(onScreenShare))) }
        if let eyes {
            members += [("blinks", .number(Double(eyes.blinks))), ("longClosures", .number(Double(eyes.longClosures))),
                        ("blinksPerMinute", .number(eyes.blinksPerMinute)), ("perclos", .number(eyes.perclos))]
        }
        return members
    }
}

extension AttentionReport {
    /// `"gazerec"."attention"`: the session's figures, then `intervals` (one per marker) when there are markers.
    public var jsonValue: JSONValue {
        var members = session.jsonMembers
        if !intervals.isEmpty {
            members.append(("intervals", .array(intervals.map { interval in
                .object([("label", .string(interval.label)), ("start", .number(interval.start)),
                         ("end", .number(interval.end))] + interval.figures.jsonMembers)
            })))
        }
        return .object(members)
    }
}
