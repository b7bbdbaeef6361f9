import Foundation
import GazeAnalysis
import GazeModel
import GRDB

extension SessionDatabase {
    /// What the face did over a session and each marker's interval (expressions and smile), nil
    /// when it has neither expression samples nor smile shapes.
    public func expressionReport(id: String) throws -> ExpressionReport? {
        try read("read the expressions of session \(id)") { db in
            try ExpressionReader.report(db, sessionRowID: try sessionRowID(db, id: id))
        }
    }
}

/// A session's expression figures from its stored expression samples, smile shapes and markers.
enum ExpressionReader {
    /// The blend shapes whose mean is the smile.
    static let smileShapes = ["mouthSmile_L", "mouthSmile_R"]

    /// The figures, in one pass over each series (a row at a time); nil without data or session.
    static func report(_ db: Database, sessionRowID: Int64) throws -> ExpressionReport? {
        guard let session = try SessionTable.screenAndEnd(db, rowid: sessionRowID) else { return nil }
        var accumulator = ExpressionAccumulator(markers: try MarkerTable.markers(db, sessionRowID: sessionRowID))
        try ExpressionTable.forEachSample(db, sessionRowID: sessionRowID) { accumulator.add($0) }
        for series in try BlendShapeTable.series(db, sessionRowID: sessionRowID) where smileShapes.contains(series.name) {
            let rows = try Row.fetchCursor(db, sql: BlendShapeTable.orderedSelectSQL, arguments: [series.rowid])
            while let row = try rows.next() {
                accumulator.addSmile(try row.decode(forColumn: BlendShapeTable.Columns.value), timestampSeconds: try row.decode(forColumn: BlendShapeTable.Columns.timestamp))
            }
        }
        return accumulator.report(endSeconds: session.end)
    }
}

extension SessionDatabase {
    /// A session's smile at each frame time that has one: the mean of its `mouthSmile_L` and
    /// `mouthSmile_R` values there (the one there is, when only one is recorded), in time order.
    public func smile(id: String) throws -> [(timestampSeconds: Double, value: Double)] {
        try read("read the smile of session \(id)") { db in
            try ExpressionReader.smile(db, sessionRowID: try sessionRowID(db, id: id))
        }
    }
}

extension ExpressionReader {
    /// `SessionDatabase.smile(id:)` inside a transaction.
    static func smile(_ db: Database, sessionRowID: Int64) throws -> [(timestampSeconds: Double, value: Double)] {
        var values: [Double: (sum: Double, count: Int)] = [:]
        for series in try BlendShapeTable.series(db, sessionRowID: sessionRowID) where smileShapes.contains(series.name) {
            let rows = try Row.fetchCursor(db, sql: BlendShapeTable.orderedSelectSQL, arguments: [series.rowid])
            while let row = try rows.next() {
                let time: Double = try row.decode(forColumn: BlendShapeTable.Columns.timestamp), value: Double = try row.decode(forColumn: BlendShapeTable.Columns.value)
                values[time, default: (0, 0)].sum += value
                values[time, default: (0, 0)].count += 1
            }
        }
        return values.keys.sorted().map { ($0, values[$0]!.sum / Double(values[$0]!.count)) }
    }
}
