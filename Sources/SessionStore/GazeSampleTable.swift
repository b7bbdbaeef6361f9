import Foundation
import GazeModel
import GRDB
import GRDBSQLite

/// The `gazeSample` table: a session's scan path, one row per sample.
///
/// The only code that writes SQL for this table, and the one place where a stored sample's
/// `trackingState` is spelled: the session format's (ARKit) text, NULL when normal, so that an
/// imported value exports unchanged; `state(stored:)` reads it back into gazerec's vocabulary.
/// Bulk paths (import, export, CSV) step prepared statements made from `insertSQL` and
/// `orderedSelectSQL` directly: 200k rows through a reused statement take a quarter of the time
/// of record inserts.
enum GazeSampleTable {
    /// The table's columns.
    enum Columns: String, TableColumn {
        case sessionRowID, seq, timestamp, x, y, orientation, trackingState
    }

    /// The columns a stored sample is read from, in `orderedSelectSQL`'s order.
    static let selected: [Columns] = [.timestamp, .x, .y, .orientation, .trackingState]

    /// Inserts one sample; parameters: the values of `Columns.allCases` in order (session row id,
    /// seq, timestamp, x, y, orientation, stored state).
    static let insertSQL = "INSERT INTO gazeSample (\(Columns.allCases.names)) VALUES (\(Columns.allCases.placeholders))"

    /// A session's samples in order; parameter: session row id; columns: `selected`.
    static let orderedSelectSQL = "SELECT \(selected.names) FROM gazeSample WHERE \(Columns.sessionRowID) = ? ORDER BY \(Columns.seq)"

    /// A sample's tracking state as stored (the session format's spelling, nil when normal).
    static func storedState(_ state: TrackingState) -> String? { state.eyeTrackingValue }

    /// A stored tracking state (NULL: normal) in gazerec's vocabulary.
    static func state(stored text: String?) -> TrackingState { TrackingState(eyeTrackingValue: text) }

    static func insert(_ db: Database, _ sample: GazeSample, sessionRowID: Int64, seq: Int) throws {
        let values: [Columns: (any DatabaseValueConvertible)?] = [
            .sessionRowID: sessionRowID, .seq: seq, .timestamp: sample.timestampSeconds, .x: sample.x, .y: sample.y,
            .orientation: sample.orientation, .trackingState: storedState(sample.trackingState),
        ]
        try db.cachedStatement(sql: insertSQL).execute(arguments: Columns.arguments(values))
    }

    /// A session's scan path in recorded order.
    static func samples(_ db: Database, sessionRowID: Int64) throws -> [GazeSample] {
        let rows = try Row.fetchCursor(db, sql: orderedSelectSQL, arguments: [sessionRowID])
        var samples: [GazeSample] = []
        while let row = try rows.next() {
            samples.append(GazeSample(timestampSeconds: try row.decode(forColumn: Columns.timestamp), x: try row.decode(forColumn: Columns.x), y: try row.decode(forColumn: Columns.y),
                                      orientation: try row.decode(forColumn: Columns.orientation), trackingState: state(stored: try row.decode(forColumn: Columns.trackingState))))
        }
        return samples
    }

    /// A session's scan path in recorded order, as `samples` reads it, stepped straight from SQLite
    /// into the array (no row value is made: the bulk read of a long session).
    static func steppedSamples(_ db: Database, sessionRowID: Int64) throws -> [GazeSample] {
        let statement = try db.makeStatement(sql: orderedSelectSQL)
        let handle = statement.sqliteStatement
        var samples: [GazeSample] = []
        _ = try SequenceTable.forEachRow(statement, ownerRowID: sessionRowID) {
            // Columns: `selected` (timestamp, x, y, orientation, trackingState).
            let stored = sqlite3_column_type(handle, 4) == SQLITE_NULL ? nil
                : String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(handle, 4), count: Int(sqlite3_column_bytes(handle, 4))),
                         as: UTF8.self)
            samples.append(GazeSample(timestampSeconds: sqlite3_column_double(handle, 0), x: sqlite3_column_double(handle, 1),
                                      y: sqlite3_column_double(handle, 2), orientation: Int(sqlite3_column_int64(handle, 3)),
                                      trackingState: state(stored: stored)))
        }
        return samples
    }

    /// Calls `body` with each sample's time and position, in order (attention figures: no state needed).
    static func forEachPosition(_ db: Database, sessionRowID: Int64, _ body: (Double, Double, Double) -> Void) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT \([Columns.timestamp, .x, .y].names) FROM gazeSample WHERE \(Columns.sessionRowID) = ? ORDER BY \(Columns.seq)
            """, arguments: [sessionRowID])
        while let row = try rows.next() { body(try row.decode(forColumn: Columns.timestamp), try row.decode(forColumn: Columns.x), try row.decode(forColumn: Columns.y)) }
    }

    /// Number of samples and the first and last sample times.
    static func span(_ db: Database, sessionRowID: Int64) throws -> (count: Int, first: Double?, last: Double?) {
        let row = try Row.fetchOne(db, sql: """
            SELECT COUNT(*) AS n, MIN(\(Columns.timestamp)) AS first, MAX(\(Columns.timestamp)) AS last
            FROM gazeSample WHERE \(Columns.sessionRowID) = ?
            """, arguments: [sessionRowID])!
        return (try row.decode(forColumn: "n"), try row.decode(forColumn: "first"), try row.decode(forColumn: "last"))
    }

    /// The orientation of a session's first sample, if it has one.
    static func firstOrientation(_ db: Database, sessionRowID: Int64) throws -> Int? {
        try Int.fetchOne(db, sql: "SELECT \(Columns.orientation) FROM gazeSample WHERE \(Columns.sessionRowID) = ? AND \(Columns.seq) = 0",
                         arguments: [sessionRowID])
    }

    /// Deletes a session's samples.
    static func delete(_ db: Database, sessionRowID: Int64) throws {
        try db.execute(sql: "DELETE FROM main.gazeSample WHERE \(Columns.sessionRowID) = ?", arguments: [sessionRowID])
    }

    /// Deletes every sample of every session.
    static func deleteAll(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM gazeSample")
    }

    /// Replaces a session's samples by those of a session in the attached database `source`.
    static func replace(_ db: Database, sessionRowID: Int64, fromSourceRowID sourceRowID: Int64) throws {
        try SequenceTable.replaceRows(db, table: "gazeSample", columns: Array(Columns.allCases.dropFirst()).names,
                                      sessionRowID: sessionRowID, fromSourceRowID: sourceRowID)
    }
}

extension SessionDatabase {
    /// A session's scan path in recorded order, and its screen size (points).
    public func scanPath(id: String) throws -> (samples: [GazeSample], screenWidth: Double, screenHeight: Double) {
        try read("read session \(id)") { db in
            let rowid = try sessionRowID(db, id: id)
            let device = try SessionTable.header(db, rowid: rowid).deviceInfo
            return (try GazeSampleTable.samples(db, sessionRowID: rowid), device.screenWidth, device.screenHeight)
        }
    }

    /// The orientation a session's samples were recorded with (from its first sample; 0 if none).
    public func sampleOrientation(id: String) throws -> Int {
        try read("read session \(id)") { db in try Self.orientation(db, sessionRowID: try sessionRowID(db, id: id)) }
    }

    /// The orientation of a session's first gaze sample, else of a blend-shape series' first; 0 if none.
    static func orientation(_ db: Database, sessionRowID: Int64) throws -> Int {
        if let gaze = try GazeSampleTable.firstOrientation(db, sessionRowID: sessionRowID) { return gaze }
        return try BlendShapeTable.firstOrientation(db, sessionRowID: sessionRowID) ?? 0
    }

    /// Replaces a session's scan path, its extension object and its screen size, in one transaction;
    /// a damaged session is refused (`StoreError.damagedSession`) and left as it is.
    ///
    /// `previousScreen`, when the screen changes, is the session's screen before: the presentations'
    /// rectangles (in screen points) are scaled from it to the new one in the same transaction.
    public func replaceScanPath(id: String, samples: [GazeSample], gazerecExtension: SessionExtension, screenWidth: Double,
                                screenHeight: Double, previousScreen: (width: Double, height: Double)? = nil) throws {
        try write("replace the scan path of session \(id)") { db in
            let rowid = try sessionRowID(db, id: id)
            try refuseDamaged(db, id: try SessionTable.id(db, rowid: rowid) ?? id, sessionRowID: rowid)
            if let previousScreen, previousScreen.width > 0, previousScreen.height > 0,
               previousScreen.width != screenWidth || previousScreen.height != screenHeight {
                try PresentationTable.rescaleRects(db, sessionRowID: rowid, x: screenWidth / previousScreen.width,
                                                   y: screenHeight / previousScreen.height)
            }
            try GazeSampleTable.delete(db, sessionRowID: rowid)
            for (seq, sample) in samples.enumerated() {
                try GazeSampleTable.insert(db, sample, sessionRowID: rowid, seq: seq)
            }
            try SeriesLengthTable.store(db, sessionRowID: rowid, replacing: true)
            try SessionTable.setExtension(db, rowid: rowid, gazerecExtension, screenWidth: screenWidth, screenHeight: screenHeight)
        }
    }
}
