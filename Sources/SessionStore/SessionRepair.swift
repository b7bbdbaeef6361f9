import GazeModel
import GRDB

extension SessionDatabase {
    /// Closes sessions left open by a recorder that died: `endTime` = their last sample (or begin),
    /// marked interrupted. `except` is the session of a recorder still running. Returns the ids closed.
    @discardableResult
    public func repairInterruptedSessions(except running: String? = nil) throws -> [String] {
        try write("repair interrupted sessions") { db in try SessionRepair.closeInterrupted(db, except: running) }
    }
}

/// The repair of sessions whose recorder died before closing them.
enum SessionRepair {
    /// Closes every open session but `running` at its last sample's time (or its begin), marked
    /// interrupted in the row and in its extension (so the mark travels with an export), its
    /// presentations still shown ended there, cut short; returns their ids.
    static func closeInterrupted(_ db: Database, except running: String?) throws -> [String] {
        var repaired: [String] = []
        for open in try SessionTable.openSessions(db) where open.id != running {
            let last = [
                try GazeSampleTable.span(db, sessionRowID: open.rowid).last,
                try FrameTable.span(db, sessionRowID: open.rowid).last,
                try BlendShapeTable.lastTimestamp(db, sessionRowID: open.rowid),
            ].compactMap { $0 }.max()
            var mark = open.gazerecExtension ?? SessionExtension()
            mark.interrupted = true
            let end = max(last ?? open.beginTime, open.beginTime)
            try SessionTable.closeInterrupted(db, rowid: open.rowid, endTimeSeconds: end, gazerecExtension: mark)
            // A presentation it was showing ended with it, cut short.
            try PresentationTable.endOpen(db, sessionRowID: open.rowid, atSeconds: end, reason: PresentationTable.recorderDied)
            // What the dead recorder committed is all there is: its lengths from now on.
            try SeriesLengthTable.store(db, sessionRowID: open.rowid, replacing: false)
            repaired.append(open.id)
        }
        return repaired
    }
}
