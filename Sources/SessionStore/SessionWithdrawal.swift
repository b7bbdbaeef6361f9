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
                let use = try Self.calibrationUse(db)
                let calibrations = try Self.calibrations(db, usedOnlyBy: rowids, orNamed: appID, use: use)
                if rowids.isEmpty && calibrations.isEmpty {
                    throw StoreError.noSessionsWithAppID(label: appID, databasePath: path)
                }
                shared = Self.sessions(using: calibrations, except: Set(rowids), use: use)
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

    /// Every session that names the calibration its gaze was mapped with: its row id, its id and
    /// that calibration's id (upper case), in the order stored. One pass over the headers.
    private static func calibrationUse(_ db: Database) throws -> [(rowid: Int64, sessionID: String, calibration: String)] {
        try SessionTable.rowids(db).compactMap { rowid in
            let header = try SessionTable.header(db, rowid: rowid)
            return header.gazerecExtension?.calibration.map { (rowid, header.id, $0.id.uppercased()) }
        }
    }

    /// For each of `calibrations`, the ids of the sessions outside `except` whose gaze it mapped, in
    /// the order stored; calibrations no such session used are absent. Ids compare in any case.
    private static func sessions(using calibrations: [String], except: Set<Int64>,
                                 use: [(rowid: Int64, sessionID: String, calibration: String)]) -> [String: [String]] {
        let stored = Dictionary(calibrations.map { ($0.uppercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var found: [String: [String]] = [:]
        for session in use where !except.contains(session.rowid) {
            guard let id = stored[session.calibration] else { continue }
            found[id, default: []].append(session.sessionID)
        }
        return found
    }

    /// The stored calibrations named `name`, and those the sessions at `rowids` were mapped with
    /// that no other session was, oldest first.
    private static func calibrations(_ db: Database, usedOnlyBy rowids: [Int64], orNamed name: String,
                                     use: [(rowid: Int64, sessionID: String, calibration: String)]) throws -> [String] {
        let chosen = Set(rowids)
        var used: Set<String> = []
        var usedByOthers: Set<String> = []
        for session in use {
            if chosen.contains(session.rowid) { used.insert(session.calibration) } else { usedByOthers.insert(session.calibration) }
        }
        let named = try CalibrationTable.ids(db, named: name)
        let wanted = Set(named).union(used.subtracting(usedByOthers))
        return try CalibrationTable.all(db).map(\.summary.id).filter { wanted.contains($0) }
    }
}
