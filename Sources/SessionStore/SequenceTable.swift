import GRDB

/// The numbering of a session's stored rows, read to tell whether any are missing.
///
/// Every per-session table numbers its rows `seq` = 0, 1, 2, … in the order they were written, and
/// nothing deletes single rows; so a stored series is whole exactly when its row count is one more
/// than its largest `seq` and its smallest is 0. Each count walks only the session's own b-tree
/// range (the primary key starts with the session), so damaged pages there raise SQLITE_CORRUPT.
enum SequenceTable {
    /// One stored series: its name for messages, and how many rows it holds against its numbering.
    struct Span: Equatable {
        var series: String
        var count: Int
        var minimum: Int?
        var maximum: Int?

        /// How many rows the numbering says are missing (0 when whole).
        var missing: Int {
            guard let minimum, let maximum else { return 0 }
            return max(0, (maximum - minimum + 1) - count) + minimum
        }
    }

    /// The series keyed by session (table, message name).
    private static let sessionSeries = [("frameSample", "frames"), ("gazeSample", "gaze samples"),
                                        ("blinkEvent", "blink events"), ("expressionSample", "expression samples"),
                                        ("marker", "markers")]

    /// The spans of every series of one session, blend-shape series named by their shape.
    static func spans(_ db: Database, sessionRowID: Int64) throws -> [Span] {
        var spans: [Span] = []
        for (table, name) in sessionSeries where try db.tableExists(table) {
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, MIN(seq) AS lo, MAX(seq) AS hi FROM \(table) WHERE sessionRowID = ?",
                                       arguments: [sessionRowID])!
            spans.append(Span(series: name, count: row["n"], minimum: row["lo"], maximum: row["hi"]))
        }
        let rows = try Row.fetchAll(db, sql: """
            SELECT s.name AS name, COUNT(b.seq) AS n, MIN(b.seq) AS lo, MAX(b.seq) AS hi
            FROM blendShapeSeries s LEFT JOIN blendShapeSample b ON b.seriesRowID = s.rowid
            WHERE s.sessionRowID = ? GROUP BY s.rowid
            """, arguments: [sessionRowID])
        for row in rows {
            let name: String = row["name"]
            spans.append(Span(series: "\(name) samples", count: row["n"], minimum: row["lo"], maximum: row["hi"]))
        }
        return spans
    }

    /// SQLite's own check of the whole file (`PRAGMA quick_check`): its findings, empty when sound.
    static func quickCheck(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "PRAGMA quick_check").filter { $0 != "ok" }
    }
}
