import Foundation
import GRDB

/// What deleting a withdrawn participant removed.
public struct WithdrawalReport: Sendable, Equatable {
    /// The sessions deleted and the files they owned.
    public var deletion: DeletionReport
    /// The calibrations deleted: those named after the participant's app id and those only the
    /// deleted sessions used.
    public var calibrationIDs: [String]
    /// The deleted calibrations that also mapped sessions of other app ids (those named after the
    /// participant are deleted even so), each with the ids of the sessions kept that used it: their
    /// gaze stays as mapped, but the calibration is no longer there to apply again.
    public var sharedWithKeptSessions: [String: [String]] = [:]
}

extension SessionDatabase {
    /// Deletes a participant who withdrew, in one step: every session recorded under `appID`, the
    /// files those sessions own (their saved videos), the calibrations named `appID`, and the
    /// calibrations that mapped those sessions' gaze and no other session's. Throws
    /// `noSessionsWithAppID` (deleting nothing) when nothing carries the label.
    public func deleteParticipant(appID: String) throws -> WithdrawalReport {
        var kept: [String] = []
        var shared: [String: [String]] = [:]
        let ((ids, calibrations), removed) = try SessionFiles.deleting { files in
            try write("delete the sessions of \(appID)") { db -> ([String], [String]) in
                let rowids = try SessionTable.rowids(db, appID: appID)
                let calibrations = try Self.calibrations(db, usedOnlyBy: rowids, orNamed: appID)
                if rowids.isEmpty && calibrations.isEmpty {
                    throw StoreError.noSessionsWithAppID(label: appID, databasePath: path)
                }
                shared = try Self.sessions(db, using: calibrations, except: Set(rowids))
                let ids = try rowids.compactMap { rowid -> String? in
                    kept += try files.moveOwned(db, rowid: rowid, in: self)
                    let id = try SessionTable.id(db, rowid: rowid)
                    try SessionTable.delete(db, rowid: rowid)
                    return id
                }
                for id in calibrations { try CalibrationTable.delete(db, id: id) }
                return (ids, calibrations)
            }
        }
        return WithdrawalReport(deletion: DeletionReport(sessionIDs: ids, removedFiles: removed, keptFiles: kept),
                                calibrationIDs: calibrations, sharedWithKeptSessions: shared)
    }

    /// For each of `calibrations`, the ids of the sessions outside `except` whose gaze it mapped, in
    /// the order stored; calibrations no such session used are absent. Ids compare in any case.
    private static func sessions(_ db: Database, using calibrations: [String], except: Set<Int64>) throws -> [String: [String]] {
        let stored = Dictionary(calibrations.map { ($0.uppercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var found: [String: [String]] = [:]
        for rowid in try SessionTable.rowids(db) where !except.contains(rowid) {
            let header = try SessionTable.header(db, rowid: rowid)
            guard let reference = header.gazerecExtension?.calibration?.id.uppercased(), let id = stored[reference] else { continue }
            found[id, default: []].append(header.id)
        }
        return found
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
