import GRDB
import GRDBSQLite

/// The numbering of a session's stored rows, read to tell whether any are missing, and what the
/// per-session tables share.
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
        /// How many rows the writer stored (`SeriesLengthTable`); nil for a session stored before
        /// lengths were kept.
        var recorded: Int? = nil

        /// How many rows the numbering and the stored length say are missing (0 when whole).
        var missing: Int {
            let numbered = maximum.map { $0 == .max ? $0 : $0 + 1 } ?? 0  // a damaged seq may hold any number
            return max(0, max(numbered, recorded ?? 0) - count)
        }
    }

    /// A stored series as an export reads it: a per-session table, or one blend-shape series.
    enum Series: Hashable {
        case table(String)
        case blendShape(seriesRowID: Int64)
    }

    /// How many rows of each series a read stepped through to the end (a series it did not read
    /// whole is absent): the counts `spans` then need not make again.
    typealias Tally = [Series: Int]

    /// The series keyed by session (table, message name).
    private static let sessionSeries = [("frameSample", "frames"), ("gazeSample", "gaze samples"),
                                        ("blinkEvent", "blink events"), ("expressionSample", "expression samples"),
                                        ("marker", "markers"), ("presentation", "presentations"),
                                        ("presentationEvent", "presentation events"), ("playbackSample", "playback samples")]

    /// The spans of every series of one session, blend-shape series named by their shape. A
    /// series in `tally` is not counted again: its smallest and largest `seq` are two index look-ups.
    static func spans(_ db: Database, sessionRowID: Int64, tally: Tally = [:]) throws -> [Span] {
        var lengths = try SeriesLengthTable.lengths(db, sessionRowID: sessionRowID)
        // Lengths stored before the presentation tables existed: those series held no row.
        let hasLengths = !lengths.isEmpty
        var spans: [Span] = []
        for (table, name) in sessionSeries where try db.tableExists(table) {
            var span = try span(db, table: table, owner: "sessionRowID", ownerRowID: sessionRowID,
                                name: name, count: tally[.table(table)])
            span.recorded = lengths.removeValue(forKey: SeriesLengthTable.key(table: table))
            if span.recorded == nil, hasLengths, SeriesLengthTable.presentationTables.contains(table) { span.recorded = 0 }
            spans.append(span)
        }
        let series = try Row.fetchAll(db, sql: "SELECT rowid, name FROM blendShapeSeries WHERE sessionRowID = ? ORDER BY rowid",
                                      arguments: [sessionRowID])
        for row in series {
            let rowid = try row.decode(Int64.self, atIndex: 0), name = try row.decode(String.self, atIndex: 1)
            var span = try span(db, table: "blendShapeSample", owner: "seriesRowID", ownerRowID: rowid,
                                name: "\(name) samples", count: tally[.blendShape(seriesRowID: rowid)])
            span.recorded = lengths.removeValue(forKey: SeriesLengthTable.key(blendShape: name))
            spans.append(span)
        }
        // A stored length whose series row is gone: the whole series is lost.
        for (key, length) in lengths.sorted(by: { $0.key < $1.key }) {
            let blendShapePrefix = SeriesLengthTable.key(blendShape: "")
            let name = key.hasPrefix(blendShapePrefix) ? "\(key.dropFirst(blendShapePrefix.count)) samples"
                : sessionSeries.first { $0.0 == key }?.1 ?? key
            spans.append(Span(series: name, count: 0, minimum: nil, maximum: nil, recorded: length))
        }
        return spans
    }

    /// One series' span: counted here, or with the `count` a read already made.
    private static func span(_ db: Database, table: String, owner: String, ownerRowID: Int64,
                             name: String, count: Int?) throws -> Span {
        if let count {
            let row = try Row.fetchOne(db, sql: """
                SELECT (SELECT seq FROM \(table) WHERE \(owner) = ?1 ORDER BY seq LIMIT 1) AS lo,
                       (SELECT seq FROM \(table) WHERE \(owner) = ?1 ORDER BY seq DESC LIMIT 1) AS hi
                """, arguments: [ownerRowID])!
            return Span(series: name, count: count, minimum: try row.decode(atIndex: 0), maximum: try row.decode(atIndex: 1))
        }
        let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, MIN(seq) AS lo, MAX(seq) AS hi FROM \(table) WHERE \(owner) = ?",
                                   arguments: [ownerRowID])!
        return Span(series: name, count: try row.decode(atIndex: 0), minimum: try row.decode(atIndex: 1),
                    maximum: try row.decode(atIndex: 2))
    }

    /// SQLite's own check of the whole file (`PRAGMA quick_check`): its findings, empty when sound.
    static func quickCheck(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "PRAGMA quick_check").filter { $0 != "ok" }
    }

    /// Steps `statement` (its first parameter bound to `ownerRowID`) through every row, calling
    /// `body` with each; returns how many there were. A failing step throws (SQLITE_CORRUPT on a
    /// damaged page), so a whole count means every row was read.
    static func forEachRow(_ statement: Statement, ownerRowID: Int64, _ body: () throws -> Void) throws -> Int {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, ownerRowID)
        defer { sqlite3_reset(handle) }
        var count = 0
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return count }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
            }
            try body()
            count += 1
        }
    }

    /// Replaces session `sessionRowID`'s rows of `table` by those of session `sourceRowID` in the
    /// attached database `source`; `columns` are the table's columns after `sessionRowID`.
    static func replaceRows(_ db: Database, table: String, columns: String, sessionRowID: Int64,
                            fromSourceRowID sourceRowID: Int64) throws {
        try db.execute(sql: "DELETE FROM main.\(table) WHERE sessionRowID = ?", arguments: [sessionRowID])
        try db.execute(sql: """
            INSERT INTO main.\(table) (sessionRowID, \(columns))
            SELECT ?, \(columns) FROM source.\(table) WHERE sessionRowID = ?
            """, arguments: [sessionRowID, sourceRowID])
    }
}
