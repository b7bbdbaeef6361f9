import GazeModel
import GRDB

/// The `marker` table: a session's event markers, in the order they were added.
///
/// The only code that writes SQL for this table. A marker may be added beside a running
/// recorder, in its own short transaction.
enum MarkerTable {
    /// A stored marker.
    struct Record: FetchableRecord {
        /// The table's columns.
        enum Columns: String, TableColumn {
            case sessionRowID, seq, timestamp, label, data
        }

        var marker: Marker

        init(row: Row) throws {
            marker = Marker(timestampSeconds: try row.decode(forColumn: Columns.timestamp), label: try row.decode(forColumn: Columns.label), dataJSON: try row.decode(forColumn: Columns.data))
        }
    }

    private typealias Columns = Record.Columns

    /// Parameters: the values of `Columns.allCases` in order (session row id, seq, timestamp, label, data).
    private static let insertSQL = "INSERT INTO marker (\(Columns.allCases.names)) VALUES (\(Columns.allCases.placeholders))"

    static func insert(_ db: Database, _ marker: Marker, sessionRowID: Int64, seq: Int) throws {
        try db.cachedStatement(sql: insertSQL).execute(arguments: [
            sessionRowID, seq, marker.timestampSeconds, marker.label, marker.dataJSON,
        ])
    }

    /// Adds a marker after a session's last one.
    static func append(_ db: Database, _ marker: Marker, sessionRowID: Int64) throws {
        let next = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(\(Columns.seq)) + 1, 0) FROM marker WHERE \(Columns.sessionRowID) = ?",
                                    arguments: [sessionRowID]) ?? 0
        try insert(db, marker, sessionRowID: sessionRowID, seq: next)
    }

    /// A session's markers in the order they were added.
    static func markers(_ db: Database, sessionRowID: Int64) throws -> [Marker] {
        try Record.fetchAll(db, sql: """
            SELECT \([Columns.timestamp, .label, .data].names) FROM marker WHERE \(Columns.sessionRowID) = ? ORDER BY \(Columns.seq)
            """,
                            arguments: [sessionRowID]).map(\.marker)
    }

    /// Deletes every marker of every session.
    static func deleteAll(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM marker")
    }
}

extension SessionDatabase {
    /// Adds an event marker to a session (one short transaction beside a running recorder's).
    public func addMarker(_ marker: Marker, sessionID: String) throws {
        try write("add a marker to session \(sessionID)") { db in
            let rowid = try sessionRowID(db, id: sessionID)
            try MarkerTable.append(db, marker, sessionRowID: rowid)
            try SeriesLengthTable.store(db, sessionRowID: rowid, replacing: false)
        }
    }

    /// A session's markers in the order they were added.
    public func markers(id: String) throws -> [Marker] {
        try read("read the markers of session \(id)") { db in
            try MarkerTable.markers(db, sessionRowID: try sessionRowID(db, id: id))
        }
    }
}
