import GazeModel
import GRDB

/// The `blinkEvent` table: a recording's blinks and long closures, in the order they ended.
///
/// The only code that writes SQL for this table.
enum BlinkTable {
    /// A stored blink event.
    struct Record: FetchableRecord {
        /// The table's columns.
        enum Columns: String, TableColumn {
            case sessionRowID, seq, start, end, eyes, kind, minimumOpenness
        }

        var startSeconds: Double
        var endSeconds: Double
        /// The stored eyes and kind, as text (written by this version in `BlinkEvent`'s vocabulary).
        var eyes: String
        var kind: String
        var minimumOpenness: Double

        init(row: Row) throws {
            startSeconds = try row.decode(forColumn: Columns.start)
            endSeconds = try row.decode(forColumn: Columns.end)
            eyes = try row.decode(forColumn: Columns.eyes)
            kind = try row.decode(forColumn: Columns.kind)
            minimumOpenness = try row.decode(forColumn: Columns.minimumOpenness)
        }

        /// The event, nil when its eyes or kind are not gazerec's vocabulary.
        var event: BlinkEvent? {
            guard let eyes = BlinkEyes(rawValue: eyes), let kind = BlinkEvent.Kind(rawValue: kind) else { return nil }
            return BlinkEvent(startSeconds: startSeconds, endSeconds: endSeconds, eyes: eyes, kind: kind,
                              minimumOpenness: minimumOpenness)
        }
    }

    private typealias Columns = Record.Columns

    /// Parameters: the values of `Columns.allCases` in order.
    private static let insertSQL = "INSERT INTO blinkEvent (\(Columns.allCases.names)) VALUES (\(Columns.allCases.placeholders))"

    /// The columns an event is read from.
    private static let selected: [Columns] = [.start, .end, .eyes, .kind, .minimumOpenness]

    static func insert(_ db: Database, _ event: BlinkEvent, sessionRowID: Int64, seq: Int) throws {
        try db.cachedStatement(sql: insertSQL).execute(arguments: [
            sessionRowID, seq, event.startSeconds, event.endSeconds, event.eyes.rawValue, event.kind.rawValue,
            event.minimumOpenness,
        ])
    }

    /// A session's events as stored, in order.
    static func records(_ db: Database, sessionRowID: Int64) throws -> [Record] {
        try Record.fetchAll(db, sql: """
            SELECT \(selected.names) FROM blinkEvent WHERE \(Columns.sessionRowID) = ? ORDER BY \(Columns.seq)
            """, arguments: [sessionRowID])
    }

    /// Calls `body` with each of a session's events in order (those of an unknown eyes or kind left out).
    static func forEachEvent(_ db: Database, sessionRowID: Int64, _ body: (BlinkEvent) -> Void) throws {
        let records = try Record.fetchCursor(db, sql: """
            SELECT \(selected.names) FROM blinkEvent WHERE \(Columns.sessionRowID) = ? ORDER BY \(Columns.seq)
            """, arguments: [sessionRowID])
        while let record = try records.next() {
            if let event = record.event { body(event) }
        }
    }

    /// The spans of a session's events of one kind (blinks or long closures), by start time.
    static func spans(_ db: Database, sessionRowID: Int64, kind: BlinkEvent.Kind) throws -> [(start: Double, end: Double)] {
        try Row.fetchAll(db, sql: """
            SELECT \([Columns.start, .end].names) FROM blinkEvent WHERE \(Columns.sessionRowID) = ? AND \(Columns.kind) = ?
            ORDER BY \(Columns.start)
            """, arguments: [sessionRowID, kind.rawValue]).map { (start: try $0.decode(forColumn: Columns.start) as Double, end: try $0.decode(forColumn: Columns.end) as Double) }
    }

    /// Deletes every event of every session.
    static func deleteAll(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM blinkEvent")
    }

    /// Replaces a session's events by those of a session in the attached database `source`.
    static func replace(_ db: Database, sessionRowID: Int64, fromSourceRowID sourceRowID: Int64) throws {
        try SequenceTable.replaceRows(db, table: "blinkEvent", columns: Array(Columns.allCases.dropFirst()).names,
                                      sessionRowID: sessionRowID, fromSourceRowID: sourceRowID)
    }
}
