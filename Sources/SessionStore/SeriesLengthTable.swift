import Foundation
import GRDB
import JSONStream

/// The session row's `seriesLengths` column: how many rows each stored series of the session held
/// when gazerec last closed, imported or rewrote it, the writer's own count kept beside the rows.
///
/// A series' numbering (`seq` 0, 1, 2, …) shows rows lost in its middle, but not rows lost from
/// its end: 499 frames numbered 0…498 look whole. The stored length tells them apart. The lengths
/// are stored in the same transaction as: a recording's close, the repair of a recording whose
/// recorder died, an import, a reanalysis or scan-path replacement, a new marker, a recorded presentation. A session still
/// being recorded, and sessions stored before the column existed (schema migration "v7: series
/// lengths"), have none; their series are checked by numbering alone.
///
/// The column is a JSON object, series key → length: `frameSample`, `gazeSample`, `blinkEvent`,
/// `expressionSample`, `marker`, `presentation`, `presentationEvent`, `playbackSample`, and
/// `blendShape:NAME` per blend-shape series.
///
/// The only code that writes SQL for this column; every function runs in the caller's transaction.
enum SeriesLengthTable {
    /// The key of a session-keyed table's series (`frameSample`, `gazeSample`, …).
    static func key(table: String) -> String { table }

    /// The key of one blend-shape series (`blendShape:eyeBlink_L`).
    static func key(blendShape name: String) -> String { "blendShape:" + name }

    /// The session-keyed tables whose lengths are stored.
    static let tables = ["frameSample", "gazeSample", "blinkEvent", "expressionSample", "marker"] + presentationTables

    /// The tables added by schema migration "v8: presentations": a session whose lengths were
    /// stored before them has none of their rows (a missing length reads as 0).
    static let presentationTables = ["presentation", "presentationEvent", "playbackSample"]

    /// The stored lengths of session `sessionRowID`'s series, by key (empty for a session stored
    /// before lengths were kept, or not closed yet). Text that is not such an object is damage
    /// (thrown as SQLite's corruption error).
    static func lengths(_ db: Database, sessionRowID: Int64) throws -> [String: Int] {
        let text = try String?.fetchOne(db, sql: "SELECT seriesLengths FROM session WHERE rowid = ?", arguments: [sessionRowID])
        guard let text = text ?? nil else { return [:] }
        guard case .object(let members)? = try? JSONValue.parse(Array(text.utf8), name: "series lengths") else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "its stored series lengths are not what gazerec wrote")
        }
        var lengths: [String: Int] = [:]
        for (key, value) in members {
            guard case .number(let number) = value, number >= 0, number < 9e15, number == number.rounded() else {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "its stored series lengths are not what gazerec wrote")
            }
            lengths[key] = Int(number)
        }
        return lengths
    }

    /// Each series' length as its rows now stand (one more than its largest `seq`: two index
    /// look-ups per series, no row is counted).
    static func current(_ db: Database, sessionRowID: Int64) throws -> [String: Int] {
        let sessionKeyed = tables.map { table in
            "SELECT '\(key(table: table))', COALESCE((SELECT seq + 1 FROM \(table) WHERE sessionRowID = ?1 ORDER BY seq DESC LIMIT 1), 0)"
        }
        let blendShapes = """
            SELECT '\(key(blendShape: ""))' || name,
                   COALESCE((SELECT seq + 1 FROM blendShapeSample WHERE seriesRowID = s.rowid ORDER BY seq DESC LIMIT 1), 0)
            FROM blendShapeSeries AS s WHERE s.sessionRowID = ?1
            """
        var lengths: [String: Int] = [:]
        let rows = try Row.fetchCursor(db, sql: (sessionKeyed + [blendShapes]).joined(separator: " UNION ALL "),
                                       arguments: [sessionRowID])
        while let row = try rows.next() {
            lengths[try row.decode(String.self, atIndex: 0)] = try row.decode(Int.self, atIndex: 1)
        }
        return lengths
    }

    /// Stores the lengths of every series of session `sessionRowID` as its rows now stand.
    ///
    /// - Parameter replacing: true after a write that replaced the session's series (an import, a
    ///   reanalysis): the lengths become what is stored now. False otherwise (a close, a repair, a
    ///   marker): a stored length only grows, so a series that lost rows still reads as damaged.
    static func store(_ db: Database, sessionRowID: Int64, replacing: Bool) throws {
        var lengths = replacing ? [:] : try lengths(db, sessionRowID: sessionRowID)
        for (key, length) in try current(db, sessionRowID: sessionRowID) {
            lengths[key] = max(lengths[key] ?? 0, length)
        }
        let text = JSONValue.object(lengths.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) }).compactText
        try db.execute(sql: "UPDATE session SET seriesLengths = ? WHERE rowid = ?", arguments: [text, sessionRowID])
    }
}
