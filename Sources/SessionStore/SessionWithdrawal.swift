import Foundation
import GRDB

/// What deleting a withdrawn participant removed.
public struct WithdrawalReport: Sendable, Equatable {
    /// The sessions deleted and the files they owned.
    public var deletion: DeletionReport
    /// The calibrations deleted: those named after the participant's app id and those only the
    /// deleted sessions used.
    public var calibrationIDs: [String]
}

extension SessionDatabase {
    /// Deletes a participant who withdrew, in one step: every session recorded under `appID`, the
    /// files those sessions own (their saved videos), the calibrations named `appID`, and the
    /// calibrations that mapped those sessions' gaze and no other session's. Throws
    /// `noSessionsWithAppID` (deleting nothing) when nothing carries the label.
    public func deleteParticipant(appID: String) throws -> WithdrawalReport {
        var kept: [String] = []
        let ((ids, calibrations), removed) = try SessionFiles.deleting { files in
            try write("delete the sessions of \(appID)") { db -> ([String], [String]) in
                let rowids = try SessionTable.rowids(db, appID: appID)
                let calibrations = try Self.calibrations(db, usedOnlyBy: rowids, orNamed: appID)
                if rowids.isEmpty && calibrations.isEmpty {
                    throw StoreError.noSessionsWithAppID(label: appID, databasePath: path)
                }
                let ids = try rowids.compactMap { rowid -> String? in
                    kept += try files.moveOwned(db, rowid: rowid)
                    let id = try SessionTable.id(db, rowid: rowid)
                    try SessionTable.delete(db, rowid: rowid)
                    return id
                }
                for id in calibrations { try CalibrationTable.delete(db, id: id) }
                return (ids, calibrations)
            }
        }
        return WithdrawalReport(deletion: DeletionReport(sessionIDs: ids, removedFiles: removed, keptFiles: kept),
                                calibrationIDs: calibrations)
    }

    /// The stored calibrations named `name`, and those the sessions at `rowids` were mapped with
    /// that no other session was, oldest first.
    private static func calibrations(_ db: Database, usedOnlyBy rowids: [Int64], orNamed name: String) throws -> [String] {
        let chosen = Set(rowids)
        var used: Set<String> = []
        var usedByOthers: Set<String> = []
        for rowid in try SessionTable.rowids(db) {
            guard let id = try SessionTable.header(db, rowid: rowid).gazerecExtension?.calibration?.id.uppercased() else { continue }
            if chosen.contains(rowid) { used.insert(id) } else { usedByOthers.insert(id) }
        }
        let named = try CalibrationTable.ids(db, named: name)
        let wanted = Set(named).union(used.subtracting(usedByOthers))
        return try CalibrationTable.all(db).map(\.summary.id).filter { wanted.contains($0) }
    }
}
