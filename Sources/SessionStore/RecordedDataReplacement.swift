import Foundation
import GazeModel
import GRDB

extension SessionDatabase {
    /// Replaces session `id`'s per-frame data — frames, scan path, blend-shape samples (of the series
    /// it has), blink events — with those of session `sourceID` in the database file `sourcePath`,
    /// and its extension object, in one transaction: on any failure the session stays as it was.
    /// Markers, the session row and its series are kept; its expression samples are replaced too
    /// when `expressions` (a re-analysis that ran the expression model), else kept.
    public func replaceRecordedData(id: String, from sourcePath: String, sourceID: String,
                                    gazerecExtension: SessionExtension, expressions: Bool = false) throws {
        try writeWithoutTransaction("replace the recorded data of session \(id)") { db in
            try Self.attaching(db, path: sourcePath, as: "source") {
                try db.inTransaction {
                    let rowid = try sessionRowID(db, id: id)
                    guard let sourceRowID = try SessionTable.rowid(db, id: sourceID, schema: "source") else {
                        throw StoreError.unknownSession(id: sourceID, databasePath: sourcePath)
                    }
                    try RecordedDataReplacement.replace(db, sessionRowID: rowid, fromSourceRowID: sourceRowID,
                                                        expressions: expressions)
                    try SessionTable.setExtension(db, rowid: rowid, gazerecExtension)
                    return .commit
                }
            }
        }
    }
}

/// A session's recorded data replaced by that of a session in another database file (a re-analysis).
enum RecordedDataReplacement {
    /// Frames, scan path, blink events and blend-shape samples of `sessionRowID` replaced by those
    /// of `sourceRowID`, and its expression samples too when `expressions`.
    static func replace(_ db: Database, sessionRowID: Int64, fromSourceRowID sourceRowID: Int64,
                        expressions: Bool = false) throws {
        try FrameTable.replace(db, sessionRowID: sessionRowID, fromSourceRowID: sourceRowID)
        try GazeSampleTable.replace(db, sessionRowID: sessionRowID, fromSourceRowID: sourceRowID)
        try BlinkTable.replace(db, sessionRowID: sessionRowID, fromSourceRowID: sourceRowID)
        try BlendShapeTable.replace(db, sessionRowID: sessionRowID, fromSourceRowID: sourceRowID)
        if expressions { try ExpressionTable.replace(db, sessionRowID: sessionRowID, fromSourceRowID: sourceRowID) }
        try SeriesLengthTable.store(db, sessionRowID: sessionRowID, replacing: true)
    }
}
