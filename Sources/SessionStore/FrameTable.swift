import Foundation
import GazeModel
import GRDB
import GRDBSQLite

/// The `frameSample` table: a recording's per-frame measurements, one row per analysed frame.
///
/// The only code that writes SQL for this table. Frames keep gazerec's vocabulary; the columns
/// after `timestamp, trackingState, confidence` are `FrameMeasurement.optionalValueNames`, in
/// table, JSON and CSV order, then the eye appearance (`EyeAppearance.encoded`).
enum FrameTable {
    /// The table's columns.
    enum Columns: String, TableColumn {
        case sessionRowID, seq, timestamp, trackingState, confidence, appearance
    }

    /// The columns after `timestamp, trackingState, confidence`, each of which may be NULL (named
    /// as `FrameMeasurement.optionalValueNames`).
    static let optionalColumns = FrameMeasurement.optionalValueNames

    /// The measured columns, in the order a stored frame is read: timestamp, trackingState,
    /// confidence, the optional columns.
    private static let measured = [Columns.timestamp, .trackingState, .confidence].map(\.rawValue) + optionalColumns

    /// The columns a frame is written to.
    private static let inserted = [Columns.sessionRowID, .seq].map(\.rawValue) + measured + [Columns.appearance.rawValue]

    private static let insertSQL = "INSERT INTO frameSample (\(inserted.joined(separator: ", "))) VALUES ("
        + inserted.map { _ in "?" }.joined(separator: ", ") + ")"

    /// The columns a stored frame is read from: the measured ones, then appearance.
    private static let selection = (measured + [Columns.appearance.rawValue]).joined(separator: ", ")

    static func insert(_ db: Database, _ frame: FrameMeasurement, sessionRowID: Int64, seq: Int) throws {
        let values: [(any DatabaseValueConvertible)?] = [
            sessionRowID, seq, frame.timestampSeconds, frame.trackingState.rawValue, frame.confidence,
        ] + frame.optionalValues + [frame.appearance.map { Data($0.encoded) }]
        try db.cachedStatement(sql: insertSQL).execute(arguments: StatementArguments(values))
    }

    /// A prepared statement of a session's frames in order, bound to nothing: parameter 1 is the
    /// session row id; its columns are those of `StoredFrameRow` (without the appearance, which is
    /// then not read at all, unless `appearance`).
    static func makeOrderedStatement(_ db: Database, appearance: Bool = true) throws -> Statement {
        let columns = appearance ? selection : measured.joined(separator: ", ")
        return try db.makeStatement(sql: "SELECT \(columns) FROM frameSample WHERE \(Columns.sessionRowID) = ? ORDER BY \(Columns.seq)")
    }

    /// The columns `FrameColumns` is read from, in order: time, tracking state, each eye's openness,
    /// then the head pose's six values (yaw, pitch, roll, tx, ty, tz).
    private static let drawn = [Columns.timestamp, .trackingState].map(\.rawValue) + optionalColumns[0...1] + optionalColumns[6...11]

    /// A session's frames as `FrameColumns`, stepped straight from SQLite into the arrays (no frame
    /// value is made; every row is read, so their count is the rows read). Throws
    /// `FrameColumnError` (with the frame's index) for a row `frame(timestamp:state:confidence:optional:)`
    /// would refuse on these columns (an unknown tracking state, part of a head pose).
    static func drawnColumns(_ db: Database, sessionRowID: Int64) throws -> FrameColumns {
        let statement = try db.makeStatement(sql: """
            SELECT \(drawn.joined(separator: ", ")) FROM frameSample WHERE \(Columns.sessionRowID) = ? ORDER BY \(Columns.seq)
            """)
        let handle = statement.sqliteStatement
        var columns = FrameColumns()
        func value(_ column: Int32) -> Double? {
            sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_double(handle, column)
        }
        _ = try SequenceTable.forEachRow(statement, ownerRowID: sessionRowID) {
            do {
                let text = String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(handle, 1),
                                                                count: Int(sqlite3_column_bytes(handle, 1))), as: UTF8.self)
                guard let state = TrackingState(rawValue: text) else { throw unknownState(text) }
                // All six pose values or none (a plain loop: this runs for every frame).
                let poseless = sqlite3_column_type(handle, 4) == SQLITE_NULL
                var column: Int32 = 5
                while column <= 9 {
                    guard (sqlite3_column_type(handle, column) == SQLITE_NULL) == poseless else { throw partialPose }
                    column += 1
                }
                columns.append(timestamp: sqlite3_column_double(handle, 0), state: state, opennessLeft: value(2),
                               opennessRight: value(3), yawDegrees: value(4), pitchDegrees: value(5), rollDegrees: value(6))
            } catch var error as FrameColumnError {
                error.reason = "frame \(columns.timestamps.count): \(error.reason)"
                throw error
            }
        }
        return columns
    }

    /// A session's frames in order; throws `FrameColumnError` (with the frame's index) for a row
    /// that does not make a frame.
    static func frames(_ db: Database, sessionRowID: Int64) throws -> [FrameMeasurement] {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT \(selection) FROM frameSample WHERE \(Columns.sessionRowID) = ? ORDER BY \(Columns.seq)
            """, arguments: [sessionRowID])
        var frames: [FrameMeasurement] = []
        while let row = try rows.next() {
            do {
                frames.append(try frame(row))
            } catch var error as FrameColumnError {
                error.reason = "frame \(frames.count): \(error.reason)"
                throw error
            }
        }
        return frames
    }

    /// Calls `body` with each frame's time, tracking state and eye openness, in order (attention figures).
    static func forEachOpenness(_ db: Database, sessionRowID: Int64, _ body: (FrameMeasurement) -> Void) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT \([Columns.timestamp, .trackingState].names), opennessLeft, opennessRight FROM frameSample
            WHERE \(Columns.sessionRowID) = ? ORDER BY \(Columns.seq)
            """, arguments: [sessionRowID])
        while let row = try rows.next() {
            let state = TrackingState(rawValue: try row.decode(forColumn: Columns.trackingState)) ?? .missing
            body(FrameMeasurement(timestampSeconds: try row.decode(forColumn: Columns.timestamp), trackingState: state, confidence: 0,
                                  opennessLeft: try row.decode(forColumn: "opennessLeft"), opennessRight: try row.decode(forColumn: "opennessRight")))
        }
    }

    /// A session's frame times, in order.
    static func timestamps(_ db: Database, sessionRowID: Int64) throws -> [Double] {
        try Double.fetchAll(db, sql: """
            SELECT \(Columns.timestamp) FROM frameSample WHERE \(Columns.sessionRowID) = ? ORDER BY \(Columns.seq)
            """, arguments: [sessionRowID])
    }

    /// Number of frames and the last frame time.
    static func span(_ db: Database, sessionRowID: Int64) throws -> (count: Int, last: Double?) {
        let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, MAX(\(Columns.timestamp)) AS t FROM frameSample WHERE \(Columns.sessionRowID) = ?",
                                   arguments: [sessionRowID])!
        return (try row.decode(forColumn: "n"), try row.decode(forColumn: "t"))
    }

    /// Deletes every frame of every session.
    static func deleteAll(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM frameSample")
    }

    /// Replaces a session's frames by those of a session in the attached database `source`.
    static func replace(_ db: Database, sessionRowID: Int64, fromSourceRowID sourceRowID: Int64) throws {
        try SequenceTable.replaceRows(db, table: "frameSample", columns: Columns.seq.rawValue + ", " + selection,
                                      sessionRowID: sessionRowID, fromSourceRowID: sourceRowID)
    }

    // MARK: - Values

    /// A stored frame row (the columns of `selection`).
    private static func frame(_ row: Row) throws -> FrameMeasurement {
        let blob: Data? = try row.decode(forColumn: Columns.appearance)
        return try frame(timestamp: try row.decode(forColumn: Columns.timestamp), state: try row.decode(forColumn: Columns.trackingState), confidence: try row.decode(forColumn: Columns.confidence),
                         optional: optionalColumns.map { try row.decode(forColumn: $0) },
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
        guard let trackingState = TrackingState(rawValue: state) else { throw unknownState(state) }
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
            throw partialPose
        }
        return FrameMeasurement(timestampSeconds: timestamp, trackingState: trackingState, confidence: confidence,
                                opennessLeft: v[0], opennessRight: v[1], pupilLeft: try point(2, "pupilLeftU and pupilLeftV"),
                                pupilRight: try point(4, "pupilRightU and pupilRightV"), headPose: pose,
                                appearance: appearance)
    }
}

extension FrameTable {
    /// A stored tracking state outside gazerec's vocabulary, its text quoted with every character
    /// that is not printable ASCII escaped (`\u{a}`): damaged bytes never reach a terminal raw, and
    /// the message stays one line.
    static func unknownState(_ state: String) -> FrameColumnError {
        let quoted = state.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "\\u{\(String($0.value, radix: 16))}" }
        return FrameColumnError(column: "trackingState", reason: "unknown tracking state '\(quoted.joined())' (expected "
                             + TrackingState.allCases.map(\.rawValue).joined(separator: ", ") + ")")
    }

    /// Some of a head pose's six values without the others.
    static let partialPose = FrameColumnError(column: "yawDegrees", reason: "a head pose needs all of yawDegrees, pitchDegrees, "
                                              + "rollDegrees, tx, ty and tz")
}

/// One row of `FrameTable.makeOrderedStatement`, read in place from the stepped statement (no copy).
struct StoredFrameRow {
    let handle: SQLiteStatement

    var timestamp: Double { sqlite3_column_double(handle, 0) }
    /// The stored tracking state's UTF-8 bytes (gazerec's vocabulary), valid until the next step.
    var trackingStateUTF8: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: sqlite3_column_text(handle, 1), count: Int(sqlite3_column_bytes(handle, 1)))
    }
    var trackingStateText: String? {
        sqlite3_column_type(handle, 1) == SQLITE_NULL ? nil : String(cString: sqlite3_column_text(handle, 1))
    }
    var confidence: Double { sqlite3_column_double(handle, 2) }
    /// The optional column at `index` of `FrameTable.optionalColumns`, nil when NULL.
    func optional(_ index: Int) -> Double? {
        let column = Int32(3 + index)
        return sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_double(handle, column)
    }
    /// The encoded appearance's bytes, valid until the next step; nil when there is none.
    var appearanceBytes: UnsafeRawBufferPointer? {
        let column = Int32(3 + FrameTable.optionalColumns.count)
        guard sqlite3_column_type(handle, column) == SQLITE_BLOB, let blob = sqlite3_column_blob(handle, column) else {
            return nil
        }
        return UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(handle, column)))
    }
}

/// Stored or imported frame values that do not make a frame.
struct FrameColumnError: Error {
    var column: String
    var reason: String
}

/// A recorded session's inputs for recomputing its scan path.
public struct StoredFrames: Sendable {
    public var header: SessionHeader
    public var frames: [FrameMeasurement]
    /// The orientation its samples were recorded with (from its first sample; 0 if none).
    public var orientation: Int
    /// Whether its recorder is still running (the session has no end time and is not interrupted).
    public var recording: Bool
}

extension SessionDatabase {
    /// A session's stored per-frame features, in order.
    public func storedFrames(id: String) throws -> StoredFrames {
        try read("read session \(id)") { db in
            let rowid = try sessionRowID(db, id: id)
            let header = try SessionTable.header(db, rowid: rowid)
            let frames: [FrameMeasurement]
            do {
                frames = try FrameTable.frames(db, sessionRowID: rowid)
            } catch let error as FrameColumnError {
                throw StoreError.database(action: "read the frames of session \(id)", path: path, reason: error.reason)
            }
            return StoredFrames(header: header, frames: frames, orientation: try Self.orientation(db, sessionRowID: rowid),
                                recording: header.endTimeSeconds == nil)
        }
    }

    /// Number of frames and the last frame time stored for a session (for `status` and tests).
    public func frameCount(id: String) throws -> (count: Int, last: Double?) {
        try read("read session \(id)") { db in try FrameTable.span(db, sessionRowID: try sessionRowID(db, id: id)) }
    }

    /// The stored frames' times of a session, in order (what a re-analysis stamps its frames with).
    public func frameTimestamps(id: String) throws -> [Double] {
        try read("read the frames of session \(id)") { db in
            try FrameTable.timestamps(db, sessionRowID: try sessionRowID(db, id: id))
        }
    }
}
