import Foundation
import GazeModel
import GRDB
import GRDBSQLite

/// The `expressionSample` table: a recording's expression probabilities, one row per frame with
/// a face that went through the expression model (migration v6).
///
/// The only code that writes SQL for this table. The columns after `timestamp` are
/// `ExpressionSample.valueNames` (neutral, happy, surprise, sad, angry, disgust, fear), each a
/// probability 0…1, in table, JSON, CSV and stream order.
enum ExpressionTable {
    /// The table's columns.
    enum Columns: String, TableColumn {
        case sessionRowID, seq, timestamp
    }

    /// The probability columns, in order (named as `ExpressionSample.valueNames`).
    static let valueColumns = ExpressionSample.valueNames

    /// The columns a sample is written to: `Columns`, then the probabilities.
    private static let inserted = Columns.allCases.map(\.rawValue) + valueColumns

    private static let insertSQL = "INSERT INTO expressionSample (\(inserted.joined(separator: ", "))) VALUES ("
        + inserted.map { _ in "?" }.joined(separator: ", ") + ")"

    /// The columns a stored sample is read from: timestamp, then the probabilities.
    private static let selection = ([Columns.timestamp.rawValue] + valueColumns).joined(separator: ", ")

    /// The ordered selection of a session's samples, parameter 1 its session row id.
    static let orderedSelectSQL = "SELECT \(selection) FROM expressionSample WHERE \(Columns.sessionRowID) = ? ORDER BY \(Columns.seq)"

    static func insert(_ db: Database, _ sample: ExpressionSample, sessionRowID: Int64, seq: Int) throws {
        let values: [(any DatabaseValueConvertible)?] = [sessionRowID, seq, sample.timestampSeconds]
            + sample.probabilities.values
        try db.cachedStatement(sql: insertSQL).execute(arguments: StatementArguments(values))
    }

    /// A prepared statement of a session's samples in order, bound to nothing (parameter 1: the
    /// session row id); its columns are those of `StoredExpressionRow`.
    static func makeOrderedStatement(_ db: Database) throws -> Statement {
        try db.makeStatement(sql: orderedSelectSQL)
    }

    /// Calls `body` with each of a session's samples, in order.
    static func forEachSample(_ db: Database, sessionRowID: Int64, _ body: (ExpressionSample) throws -> Void) throws {
        let rows = try Row.fetchCursor(db, sql: orderedSelectSQL, arguments: [sessionRowID])
        while let row = try rows.next() {
            try body(ExpressionSample(timestampSeconds: try row.decode(forColumn: Columns.timestamp),
                                      probabilities: ExpressionProbabilities(values: valueColumns.map { try row.decode(forColumn: $0) })))
        }
    }

    /// A session's samples as `ExpressionColumns`, stepped straight from SQLite into the arrays.
    static func columns(_ db: Database, sessionRowID: Int64) throws -> ExpressionColumns {
        let statement = try makeOrderedStatement(db)
        let row = StoredExpressionRow(handle: statement.sqliteStatement)
        var columns = ExpressionColumns()
        _ = try SequenceTable.forEachRow(statement, ownerRowID: sessionRowID) {
            columns.timestamps.append(row.timestamp)
            for index in columns.probabilities.indices { columns.probabilities[index].append(row.probability(index)) }
        }
        return columns
    }

    /// Number of a session's samples.
    static func count(_ db: Database, sessionRowID: Int64) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM expressionSample WHERE \(Columns.sessionRowID) = ?",
                         arguments: [sessionRowID]) ?? 0
    }

    /// Whether any of these sessions has a sample.
    static func any(_ db: Database, sessionRowIDs: [Int64]) throws -> Bool {
        try sessionRowIDs.contains { rowid in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM expressionSample WHERE \(Columns.sessionRowID) = ?)",
                              arguments: [rowid]) ?? false
        }
    }

    /// Deletes every sample of every session.
    static func deleteAll(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM expressionSample")
    }

    /// Replaces a session's samples by those of a session in the attached database `source`.
    static func replace(_ db: Database, sessionRowID: Int64, fromSourceRowID sourceRowID: Int64) throws {
        try SequenceTable.replaceRows(db, table: "expressionSample", columns: Columns.seq.rawValue + ", " + selection,
                                      sessionRowID: sessionRowID, fromSourceRowID: sourceRowID)
    }
}

/// One row of `ExpressionTable.makeOrderedStatement`, read in place from the stepped statement.
struct StoredExpressionRow {
    let handle: SQLiteStatement

    var timestamp: Double { sqlite3_column_double(handle, 0) }
    /// The probability of the expression at `index` of `ExpressionTable.valueColumns`.
    func probability(_ index: Int) -> Double { sqlite3_column_double(handle, Int32(1 + index)) }
}

extension SessionDatabase {
    /// A session's expression samples, in order.
    public func expressionSamples(id: String) throws -> [ExpressionSample] {
        try read("read the expressions of session \(id)") { db in
            var samples: [ExpressionSample] = []
            try ExpressionTable.forEachSample(db, sessionRowID: try sessionRowID(db, id: id)) { samples.append($0) }
            return samples
        }
    }
}
