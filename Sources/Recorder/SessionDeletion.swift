import Foundation
import SessionStore

/// What a deletion takes from a station's database.
public enum DeletionScope: Sendable, Equatable {
    /// These sessions (full ids or unambiguous prefixes, any case): all of them or none.
    case sessions([String])
    /// A participant who withdrew: every session recorded under this app id, and the calibrations
    /// named so or used by those sessions alone.
    case participant(appID: String)
    /// Every session; the (empty) database stays.
    case everySession
    /// The database file itself, its WAL/SHM files and what a recorder left beside it.
    case databaseFile
}

/// A deletion from a station's database with every rule `gazerec delete` keeps: the sessions go
/// with the files they own (their saved videos) in one step, never the session being recorded
/// (sessions beside a running recording may go; every session or the file only while nobody
/// records), and nothing of what was deleted stays beside the database: the recorder's status file
/// (`<database>.recorder-status`) and a detached recorder's log (`<database>.recorder.log`) go
/// when they name a deleted session or calibration, and with every session or the file always.
///
/// While a recorder runs, its status file and log are its own and stay.
public struct SessionDeletion: Sendable {
    public var databasePath: String
    public var scope: DeletionScope

    public init(databasePath: String, scope: DeletionScope) {
        self.databasePath = databasePath
        self.scope = scope
    }

    /// What a deletion removed.
    public struct Outcome: Sendable, Equatable {
        /// The full ids of the deleted sessions, in the order deleted.
        public var sessionIDs: [String] = []
        /// The calibrations deleted with a participant (none otherwise).
        public var calibrationIDs: [String] = []
        /// The deleted calibrations that other participants' kept sessions had been mapped with,
        /// each with those sessions' ids (`WithdrawalReport.sharedWithKeptSessions`).
        public var calibrationsSharedWithKeptSessions: [String: [String]] = [:]
        /// Every file removed (absolute or as the database was named): the sessions' videos, then
        /// the recorder's status file and log when they named what was deleted.
        public var removedFiles: [String] = []
        /// Files the sessions named that were not theirs, left where they are.
        public var keptFiles: [String] = []
        /// False when the database file did not exist (every session or the file asked for:
        /// nothing to delete, and nothing was).
        public var databaseExisted = true

        public init() {}
    }

    /// How many sessions a deletion of every session or of the file would take, or nil when the
    /// database file does not exist: what to confirm before `run`.
    public func sessionCount() throws -> Int? {
        guard FileManager.default.fileExists(atPath: databasePath) else { return nil }
        return try SessionDatabase.openForReading(path: databasePath).sessionIDs().count
    }

    /// Deletes what `scope` names. For every session and for the file, `confirm` is called with
    /// the number of sessions once it is known that no recorder runs (throwing from it deletes
    /// nothing), and the recorder lock is held from then on, so no recording starts meanwhile.
    /// Throws `unknownSession` (ids) or `noSessionsWithAppID` (a participant) when the database file
    /// does not exist, and `recordingInProgress` when the recorder's session would be touched.
    public func run(confirm: (_ sessionCount: Int) throws -> Void = { _ in }) throws -> Outcome {
        switch scope {
        case .sessions(let ids): return try deleteSessions(ids)
        case .participant(let appID): return try deleteParticipant(appID)
        case .everySession, .databaseFile: return try deleteEverything(confirm: confirm)
        }
    }

    private func deleteSessions(_ ids: [String]) throws -> Outcome {
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw StoreError.unknownSession(id: ids.first ?? "", databasePath: databasePath)
        }
        let reading = try SessionDatabase.openForReading(path: databasePath)
        let wanted = Set(try ids.map { try reading.canonicalID($0).uppercased() })
        let action = "delete session \(ids.count == 1 ? ids[0] : "s \(ids.joined(separator: ", "))")"
        return try RecorderLock.whileNotRecording(databasePath: databasePath, action: action,
                                                  allowed: { Self.untouched($0, by: wanted) }) { running in
            var outcome = Outcome(try SessionDatabase(path: databasePath).deleteSessions(ids: ids))
            outcome.removedFiles += RecorderTraces(databasePath: databasePath)
                .remove(naming: Set(outcome.sessionIDs), sessions: Set(outcome.sessionIDs), everything: false, running: running)
            return outcome
        }
    }

    private func deleteParticipant(_ label: String) throws -> Outcome {
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw StoreError.noSessionsWithAppID(label: label, databasePath: databasePath)
        }
        let theirs = Set(try SessionDatabase.openForReading(path: databasePath).summaries()
            .filter { $0.header.appID == label }.map { $0.header.id.uppercased() })
        return try RecorderLock.whileNotRecording(databasePath: databasePath, action: "delete the sessions of \(label)",
                                                  allowed: { Self.untouched($0, by: theirs) }) { running in
            let report = try SessionDatabase(path: databasePath).deleteParticipant(appID: label)
            var outcome = Outcome(report.deletion)
            outcome.calibrationIDs = report.calibrationIDs
            outcome.calibrationsSharedWithKeptSessions = report.sharedWithKeptSessions
            outcome.removedFiles += RecorderTraces(databasePath: databasePath)
                .remove(naming: Set(report.deletion.sessionIDs + report.calibrationIDs), sessions: Set(report.deletion.sessionIDs),
                        everything: false, running: running)
            return outcome
        }
    }

    private func deleteEverything(confirm: (Int) throws -> Void) throws -> Outcome {
        let action = scope == .everySession ? "delete every session" : "delete the database"
        guard let count = try sessionCount() else {
            var outcome = Outcome()
            outcome.databaseExisted = false
            return outcome
        }
        // Checked before asking, and held while deleting: no recording may start meanwhile.
        if let running = RecorderLock.running(databasePath: databasePath) {
            throw RecorderError.recordingInProgress(action: action, sessionID: running.sessionID, pid: running.pid,
                                                    databasePath: databasePath)
        }
        try confirm(count)
        return try RecorderLock.whileNotRecording(databasePath: databasePath, action: action) { running in
            var outcome = scope == .everySession
                ? Outcome(try SessionDatabase(path: databasePath).deleteAllSessions())
                : Outcome(try SessionDatabase.deleteDatabase(path: databasePath))
            outcome.removedFiles += RecorderTraces(databasePath: databasePath)
                .remove(naming: [], sessions: [], everything: true, running: running)
            return outcome
        }
    }

    /// Whether the running recorder's session is outside `deleted` (upper-case ids) and known.
    private static func untouched(_ recorder: RecorderInfo, by deleted: Set<String>) -> Bool {
        !deleted.contains(recorder.sessionID.uppercased()) && recorder.sessionID != RecorderInfo.unknownSession
    }
}

extension SessionDeletion.Outcome {
    init(_ report: DeletionReport) {
        self.init()
        sessionIDs = report.sessionIDs
        removedFiles = report.removedFiles
        keptFiles = report.keptFiles
    }
}

/// What a recorder leaves beside its database that names sessions: its status file (a dead
/// recorder's; a recording that ends removes it) and a detached recorder's log (kept after the
/// recording, for reading).
struct RecorderTraces {
    var databasePath: String

    /// Removes the status file and the log when they name one of `ids` (the deleted sessions and
    /// calibrations, any case), or, with `everything`, whatever they name. While a recorder runs
    /// (`running`) its status file is its own and stays, and the log (one detached recording's) goes
    /// only when it names a deleted session, which cannot be the running one. Returns the paths removed.
    func remove(naming ids: Set<String>, sessions: Set<String>, everything: Bool, running: RecorderInfo?) -> [String] {
        let log = RecorderLock.logPath(databasePath: databasePath)
        let wanted = running == nil ? Set(ids.map { $0.uppercased() }) : Set(sessions.map { $0.uppercased() })
        var removed: [String] = []
        for path in files() where running == nil || path == log {
            let text = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").uppercased()
            guard (everything && running == nil) || wanted.contains(where: { text.contains($0) }) else { continue }
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed
    }

    /// The status file, the temporary siblings of status writes a dead recorder was in, and the log
    /// (those that exist).
    func files() -> [String] {
        let log = RecorderLock.logPath(databasePath: databasePath)
        return RecorderLock.statusFiles(databasePath: databasePath) + (FileManager.default.fileExists(atPath: log) ? [log] : [])
    }
}
