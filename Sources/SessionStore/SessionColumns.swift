import Foundation
import GazeModel
import GRDB

/// A session's series as a page draws them, read column by column: the scan path, the frames'
/// time, tracking state, eye openness and head pose angles (not their confidence, pupils,
/// head position or eye appearance), blink events, markers, expression probabilities and the
/// smile. Every value is the one `StoredSession` holds for the same session.
public struct SessionColumns: Sendable {
    public var header: SessionHeader
    /// The scan path, in time order (as `StoredSession.gaze`).
    public var gaze: [GazeSample]
    public var frames: FrameColumns
    public var blinks: [BlinkEvent]
    public var markers: [Marker]
    public var expressions: ExpressionColumns
    /// The smile at each frame time that has one (`SessionDatabase.smile(id:)`); empty without expression samples.
    public var smile: [(timestampSeconds: Double, value: Double)]
}

/// A session's frames, one array per value, each in frame order and of one length; nil where a
/// frame has no value (as the `FrameMeasurement` at the same index has none).
public struct FrameColumns: Sendable, Equatable {
    /// Unix time in seconds.
    public var timestamps: [Double] = []
    /// How the face was tracked (`missing`: no face).
    public var trackingStates: [TrackingState] = []
    /// Each eye's openness 0…1, the participant's left and right.
    public var opennessLeft: [Double?] = []
    public var opennessRight: [Double?] = []
    /// Head pose angles in degrees, as `HeadPoseMeasurement` signs them (nil without a head pose).
    public var yawDegrees: [Double?] = []
    public var pitchDegrees: [Double?] = []
    public var rollDegrees: [Double?] = []

    public var count: Int { timestamps.count }

    mutating func append(timestamp: Double, state: TrackingState, opennessLeft left: Double?, opennessRight right: Double?,
                         yawDegrees yaw: Double?, pitchDegrees pitch: Double?, rollDegrees roll: Double?) {
        timestamps.append(timestamp)
        trackingStates.append(state)
        opennessLeft.append(left)
        opennessRight.append(right)
        yawDegrees.append(yaw)
        pitchDegrees.append(pitch)
        rollDegrees.append(roll)
    }
}

/// A session's expression samples, one array per value, each in sample order and of one length.
public struct ExpressionColumns: Sendable, Equatable {
    /// Unix time in seconds.
    public var timestamps: [Double] = []
    /// Each expression's probability 0…1, one array per `ExpressionName.allCases` in that order.
    public var probabilities: [[Double]] = ExpressionName.allCases.map { _ in [] }

    public var count: Int { timestamps.count }

    /// The probabilities of expression `name`, one per sample.
    public func values(_ name: ExpressionName) -> [Double] {
        probabilities[ExpressionName.allCases.firstIndex(of: name)!]
    }
}

extension SessionDatabase {
    /// Session `id`'s `SessionColumns`, read in one transaction that also checks the session whole
    /// (the rows read are counted against the series' numbering, as an export checks them): a
    /// damaged session is `StoreError.damagedSession`; a frame that cannot be read is a
    /// `StoreError.database` naming it, as `storedSession(id:)` says it.
    public func sessionColumns(id: String) throws -> SessionColumns {
        var columns: SessionColumns?
        try readVerifying("read session \(id)") { db in
            let rowid = try sessionRowID(db, id: id)
            // The header is read inside the check: a value in it no reader can take is the session's damage.
            try Self.verifying(db, id: try SessionTable.id(db, rowid: rowid, naming: id), sessionRowID: rowid) {
                columns = try Self.columns(db, sessionRowID: rowid, header: try SessionTable.header(db, rowid: rowid), path: path)
                return [.table("gazeSample"): columns!.gaze.count, .table("frameSample"): columns!.frames.count,
                        .table("expressionSample"): columns!.expressions.count]
            }
        }
        return columns!
    }

    private static func columns(_ db: Database, sessionRowID rowid: Int64, header: SessionHeader, path: String) throws -> SessionColumns {
        let frames: FrameColumns
        do {
            frames = try FrameTable.drawnColumns(db, sessionRowID: rowid)
        } catch let error as FrameColumnError {
            throw StoreError.database(action: "read the frames of session \(header.id)", path: path, reason: error.reason)
        }
        let expressions = try ExpressionTable.columns(db, sessionRowID: rowid)
        return SessionColumns(
            header: header, gaze: try GazeSampleTable.steppedSamples(db, sessionRowID: rowid), frames: frames,
            blinks: try BlinkTable.records(db, sessionRowID: rowid).compactMap(\.event),
            markers: try MarkerTable.markers(db, sessionRowID: rowid), expressions: expressions,
            smile: expressions.count == 0 ? [] : try ExpressionReader.smile(db, sessionRowID: rowid))
    }
}
