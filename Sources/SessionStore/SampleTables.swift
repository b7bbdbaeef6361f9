import Foundation
import GazeModel
import GRDB

/// The sample tables' rows, written with named columns in one place.
///
/// The recorder's writer, the importer and `recalibrate` insert through these statements, so the
/// column order of a table is written down once. Gaze and blend-shape samples keep the session
/// format's `trackingState` text (ARKit spelling, absent when normal) so that imported values
/// export unchanged; frames keep gazerec's vocabulary.
enum SampleTables {
    static let insertGaze = """
        INSERT INTO gazeSample (sessionRowID, seq, timestamp, x, y, orientation, trackingState)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """
    static let insertBlendShape = """
        INSERT INTO blendShapeSample (seriesRowID, seq, timestamp, value, orientation, trackingState)
        VALUES (?, ?, ?, ?, ?, ?)
        """
    static let insertFrame = """
        INSERT INTO frameSample (sessionRowID, seq, timestamp, trackingState, confidence, opennessLeft, opennessRight,
                                 pupilLeftU, pupilLeftV, pupilRightU, pupilRightV, yawDegrees, pitchDegrees,
                                 rollDegrees, tx, ty, tz, appearance)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let insertBlink = """
        INSERT INTO blinkEvent (sessionRowID, seq, start, end, eyes, kind, minimumOpenness) VALUES (?, ?, ?, ?, ?, ?, ?)
        """

    static func insert(_ sample: GazeSample, sessionRowID: Int64, seq: Int, db: Database) throws {
        try db.cachedStatement(sql: insertGaze).execute(arguments: [
            sessionRowID, seq, sample.timestampSeconds, sample.x, sample.y, sample.orientation,
            sample.trackingState.eyeTrackingValue,
        ])
    }

    static func insert(_ sample: BlendShapeSample, seriesRowID: Int64, seq: Int, db: Database) throws {
        try db.cachedStatement(sql: insertBlendShape).execute(arguments: [
            seriesRowID, seq, sample.timestampSeconds, sample.value, sample.orientation, sample.trackingState.eyeTrackingValue,
        ])
    }

    static func insert(_ frame: FrameMeasurement, sessionRowID: Int64, seq: Int, db: Database) throws {
        let values: [(any DatabaseValueConvertible)?] = [
            sessionRowID, seq, frame.timestampSeconds, frame.trackingState.rawValue, frame.confidence,
        ] + frame.optionalValues + [frame.appearance.map { Data($0.encoded) }]
        try db.cachedStatement(sql: insertFrame).execute(arguments: StatementArguments(values))
    }

    static let insertMarker = "INSERT INTO marker (sessionRowID, seq, timestamp, label, data) VALUES (?, ?, ?, ?, ?)"

    static func insert(_ marker: Marker, sessionRowID: Int64, seq: Int, db: Database) throws {
        try db.cachedStatement(sql: insertMarker).execute(arguments: [
            sessionRowID, seq, marker.timestampSeconds, marker.label, marker.dataJSON,
        ])
    }

    static func markers(_ db: Database, sessionRowID: Int64) throws -> [Marker] {
        try Row.fetchAll(db, sql: "SELECT timestamp, label, data FROM marker WHERE sessionRowID = ? ORDER BY seq",
                         arguments: [sessionRowID])
            .map { Marker(timestampSeconds: $0["timestamp"], label: $0["label"], dataJSON: $0["data"]) }
    }

    static func insert(_ event: BlinkEvent, sessionRowID: Int64, seq: Int, db: Database) throws {
        try db.cachedStatement(sql: insertBlink).execute(arguments: [
            sessionRowID, seq, event.startSeconds, event.endSeconds, event.eyes.rawValue, event.kind.rawValue,
            event.minimumOpenness,
        ])
    }

    /// The frame columns after `timestamp, trackingState, confidence`, in table, JSON and CSV order
    /// (each may be NULL / absent).
    static let frameOptionalColumns = FrameMeasurement.optionalValueNames

    /// The columns a stored frame is read from, in `frame(_:)`'s order.
    static let frameSelection = "timestamp, trackingState, confidence, " + frameOptionalColumns.joined(separator: ", ")
        + ", appearance"

    /// A stored frame row (the columns of `frameSelection`).
    static func frame(_ row: Row) throws -> FrameMeasurement {
        let blob: Data? = row[3 + frameOptionalColumns.count]
        return try frame(timestamp: row[0], state: row[1], confidence: row[2],
                         optional: (3..<(3 + frameOptionalColumns.count)).map { row[$0] },
                         appearance: try blob.map { try appearance($0) })
    }

    /// A stored or imported appearance (`EyeAppearance.encoded`).
    static func appearance(_ bytes: Data) throws -> EyeAppearance {
        guard let appearance = EyeAppearance(encoded: bytes) else {
            throw FrameColumnError(column: "appearance", reason: "not an encoded eye appearance (\(EyeAppearance.encodedCount) "
                                   + "bytes, version \(EyeAppearance.encodingVersion), finite landmarks)")
        }
        return appearance
    }

    /// A frame from its stored or imported columns; throws `FrameColumnError` for values that do not
    /// make a frame (an unknown tracking state, half a pupil, part of a head pose).
    static func frame(timestamp: Double, state: String, confidence: Double, optional v: [Double?],
                      appearance: EyeAppearance? = nil) throws -> FrameMeasurement {
        guard let trackingState = TrackingState(rawValue: state) else {
            throw FrameColumnError(column: "trackingState",
                                   reason: "unknown tracking state '\(state)' (expected "
                                       + TrackingState.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        func point(_ u: Int, _ names: String) throws -> Point2? {
            switch (v[u], v[u + 1]) {
            case let (x?, y?): return Point2(x, y)
            case (nil, nil): return nil
            default: throw FrameColumnError(column: names, reason: "\(names) must be given together")
            }
        }
        let poseValues = v[6...11]
        var pose: HeadPoseMeasurement?
        if poseValues.allSatisfy({ $0 != nil }) {
            pose = HeadPoseMeasurement(yawDegrees: v[6]!, pitchDegrees: v[7]!, rollDegrees: v[8]!,
                                       translation: Vector3(v[9]!, v[10]!, v[11]!))
        } else if poseValues.contains(where: { $0 != nil }) {
            throw FrameColumnError(column: "yawDegrees", reason: "a head pose needs all of yawDegrees, pitchDegrees, "
                                   + "rollDegrees, tx, ty and tz")
        }
        return FrameMeasurement(timestampSeconds: timestamp, trackingState: trackingState, confidence: confidence,
                                opennessLeft: v[0], opennessRight: v[1], pupilLeft: try point(2, "pupilLeftU and pupilLeftV"),
                                pupilRight: try point(4, "pupilRightU and pupilRightV"), headPose: pose,
                                appearance: appearance)
    }
}

/// Stored or imported frame values that do not make a frame.
struct FrameColumnError: Error {
    var column: String
    var reason: String
}
