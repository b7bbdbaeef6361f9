import Foundation
import GazeModel
import GRDB

/// The `blendShapeSeries` and `blendShapeSample` tables: one series per name per session, one
/// row per sample of a series.
///
/// The only code that writes SQL for these tables. Samples keep the session format's
/// `trackingState` text as gaze samples do (`GazeSampleTable.storedState`). Bulk paths step
/// prepared statements made from `insertSQL` and `orderedSelectSQL`.
enum BlendShapeTable {
    /// The sample table's columns.
    enum Columns: String, TableColumn {
        case seriesRowID, seq, timestamp, value, orientation, trackingState
    }

    /// The columns a stored sample is read from, in `orderedSelectSQL`'s order.
    static let selected: [Columns] = [.timestamp, .value, .orientation, .trackingState]

    /// A series row: its row id and blend-shape name.
    struct Series: FetchableRecord {
        /// The series table's columns.
        enum Columns: String, TableColumn {
            case rowid, sessionRowID, name
        }

        var rowid: Int64
        var name: String

        init(row: Row) throws {
            rowid = try row.decode(forColumn: Columns.rowid)
            name = try row.decode(forColumn: Columns.name)
        }
    }

    /// Inserts one sample; parameters: the values of `Columns.allCases` in order (series row id,
    /// seq, timestamp, value, orientation, stored state).
    static let insertSQL = "INSERT INTO blendShapeSample (\(Columns.allCases.names)) VALUES (\(Columns.allCases.placeholders))"

    /// A series' samples in order; parameter: series row id; columns: `selected`.
    static let orderedSelectSQL = "SELECT \(selected.names) FROM blendShapeSample WHERE \(Columns.seriesRowID) = ? ORDER BY \(Columns.seq)"

    /// Adds a series to a session; returns its row id.
    static func insertSeries(_ db: Database, sessionRowID: Int64, name: String) throws -> Int64 {
        try db.execute(sql: "INSERT INTO blendShapeSeries (\([Series.Columns.sessionRowID, .name].names)) VALUES (?, ?)",
                       arguments: [sessionRowID, name])
        return db.lastInsertedRowID
    }

    static func insert(_ db: Database, _ sample: BlendShapeSample, seriesRowID: Int64, seq: Int) throws {
        let values: [Columns: (any DatabaseValueConvertible)?] = [
            .seriesRowID: seriesRowID, .seq: seq, .timestamp: sample.timestampSeconds, .value: sample.value,
            .orientation: sample.orientation, .trackingState: GazeSampleTable.storedState(sample.trackingState),
        ]
        try db.cachedStatement(sql: insertSQL).execute(arguments: Columns.arguments(values))
    }

    /// A session's series, by name.
    static func series(_ db: Database, sessionRowID: Int64) throws -> [Series] {
        try Series.fetchAll(db, sql: """
            SELECT \([Series.Columns.rowid, .name].names) FROM blendShapeSeries WHERE \(Series.Columns.sessionRowID) = ?
            ORDER BY \(Series.Columns.name)
            """, arguments: [sessionRowID])
    }

    /// The names of the series of any of these sessions, sorted.
    static func names(_ db: Database, sessionRowIDs: [Int64]) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT DISTINCT \(Series.Columns.name) FROM blendShapeSeries
            WHERE \(Series.Columns.sessionRowID) IN (\(sessionRowIDs.map { String($0) }.joined(separator: ",")))
            ORDER BY \(Series.Columns.name)
            """)
    }

    /// Each series' name and number of samples, sorted by name.
    static func sampleCounts(_ db: Database, sessionRowID: Int64) throws -> [(name: String, count: Int)] {
        try Row.fetchAll(db, sql: """
            SELECT s.\(Series.Columns.name) AS \(Series.Columns.name),
                (SELECT COUNT(*) FROM blendShapeSample b WHERE b.\(Columns.seriesRowID) = s.\(Series.Columns.rowid)) AS n
            FROM blendShapeSeries s WHERE s.\(Series.Columns.sessionRowID) = ? ORDER BY s.\(Series.Columns.name)
            """, arguments: [sessionRowID]).map { (name: try $0.decode(forColumn: Series.Columns.name), count: try $0.decode(forColumn: "n")) }
    }

    /// The last sample time of any of a session's series.
    static func lastTimestamp(_ db: Database, sessionRowID: Int64) throws -> Double? {
        try Double.fetchOne(db, sql: """
            SELECT MAX(b.\(Columns.timestamp)) FROM blendShapeSample b
            JOIN blendShapeSeries s ON b.\(Columns.seriesRowID) = s.\(Series.Columns.rowid) WHERE s.\(Series.Columns.sessionRowID) = ?
            """, arguments: [sessionRowID])
    }

    /// The orientation of the first sample of one of a session's series, if any has one.
    static func firstOrientation(_ db: Database, sessionRowID: Int64) throws -> Int? {
        try Int.fetchOne(db, sql: """
            SELECT b.\(Columns.orientation) FROM blendShapeSample b JOIN blendShapeSeries s
                ON b.\(Columns.seriesRowID) = s.\(Series.Columns.rowid) WHERE s.\(Series.Columns.sessionRowID) = ? AND b.\(Columns.seq) = 0 LIMIT 1
            """, arguments: [sessionRowID])
    }

    /// Deletes every series and sample of every session.
    static func deleteAll(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM blendShapeSample; DELETE FROM blendShapeSeries")
    }

    /// Replaces the samples of each of a session's series by those of the series of the same name
    /// of a session in the attached database `source` (none when it has no such series).
    static func replace(_ db: Database, sessionRowID: Int64, fromSourceRowID sourceRowID: Int64) throws {
        let series = try Series.fetchAll(db, sql: """
            SELECT \([Series.Columns.rowid, .name].names) FROM main.blendShapeSeries WHERE \(Series.Columns.sessionRowID) = ?
            """, arguments: [sessionRowID])
        for entry in series {
            try db.execute(sql: "DELETE FROM main.blendShapeSample WHERE \(Columns.seriesRowID) = ?", arguments: [entry.rowid])
            try db.execute(sql: """
                INSERT INTO main.blendShapeSample (\(Columns.allCases.names))
                SELECT ?, \(Array(Columns.allCases.dropFirst()).names) FROM source.blendShapeSample WHERE \(Columns.seriesRowID) =
                    (SELECT \(Series.Columns.rowid) FROM source.blendShapeSeries
                     WHERE \(Series.Columns.sessionRowID) = ? AND \(Series.Columns.name) = ?)
                """, arguments: [entry.rowid, sourceRowID, entry.name])
        }
    }
}
