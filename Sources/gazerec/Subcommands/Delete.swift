import ArgumentParser
import Foundation
import GazeModel
import JSONStream
import Recorder
import SessionStore

extension Gazerec {
    /// `gazerec delete`: the iOS package's `delete(session)`, `deleteAll()` and `deleteDatabase()`.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete sessions, every session (--all), or the database file itself (--database).",
            discussion: """
                Ids are deleted in one transaction: if one is unknown, none is deleted. --app-id LABEL \
                deletes a participant who withdrew: every session recorded with that app id, their \
                videos, and the calibrations named LABEL or used by those sessions alone. A session's \
                saved face video (start --save-video) is removed with it in the same step, and every \
                file removed is named on stderr; a video that cannot be removed fails the deletion, \
                naming it, with the session kept. --all and \
                --database ask for confirmation on a terminal and need --yes otherwise. Here \
                --database is a flag; to name the file, put --database PATH before the subcommand \
                (gazerec --database PATH delete --all) or set GAZEREC_DATABASE.
                """)

        @Argument(help: "Session ids (case-insensitive).")
        var ids: [String] = []

        @Option(help: ArgumentHelp("Delete every session recorded with this app id (a participant who withdrew), "
                                   + "their videos, and the calibrations named so or used by those sessions alone.",
                                   valueName: "label"))
        var appID: String?

        @Flag(help: "Delete every session, keeping the (empty) database.")
        var all = false

        @Flag(name: .customLong("database"), help: "Delete the database file, its WAL/SHM files and a detached recorder's log.")
        var deleteDatabase = false

        @Flag(help: "Do not ask for confirmation.")
        var yes = false

        func validate() throws {
            let modes = (ids.isEmpty ? 0 : 1) + (all ? 1 : 0) + (deleteDatabase ? 1 : 0) + (appID == nil ? 0 : 1)
            if modes == 0 { throw ValidationError("Give session ids, --app-id LABEL, --all or --database.") }
            if modes > 1 { throw ValidationError("Give only one of: session ids, --app-id LABEL, --all, --database.") }
            if let appID { try LabelArgument.check(appID, as: "--app-id") }
            try StoreOptions.checkNotEmpty(nil)
            try StoreOptions.refuseServerDeletion(StoreOptions.resolve(nil))
        }

        func run() throws {
            let path = StoreOptions.resolve(nil)
            if let appID { return try deleteParticipant(appID, path: path) }
            if !ids.isEmpty {
                guard FileManager.default.fileExists(atPath: path) else {
                    throw StoreError.unknownSession(id: ids[0], databasePath: path)
                }
                // Sessions beside a running recording may go; the one being recorded may not.
                let reading = try SessionDatabase.openForReading(path: path)
                let wanted = Set(try ids.map { try reading.canonicalID($0) })
                let deleted = try RecorderLock.whileNotRecording(
                    databasePath: path, action: "delete session \(ids.count == 1 ? ids[0] : "s \(ids.joined(separator: ", "))")",
                    allowed: { !wanted.contains($0.sessionID.uppercased()) && $0.sessionID != RecorderInfo.unknownSession }
                ) { try SessionDatabase(path: path).deleteSessions(ids: ids) }
                Console.output(deleted.sessionIDs.map { $0 + "\n" }.joined())
                Self.tell(deleted)
                Console.note("deleted \(ids.count) session\(ids.count == 1 ? "" : "s")")
                return
            }
            guard FileManager.default.fileExists(atPath: path) else {
                Console.note("nothing to delete: \(path) does not exist.")
                return
            }
            let count = try SessionDatabase.openForReading(path: path).sessionIDs().count
            let sessions = "\(count) session\(count == 1 ? "" : "s")"
            let question = all ? "Delete all \(sessions) in \(path)?"
                : "Delete the database file \(path) and everything in it (\(sessions))?"
            // Checked before asking, and held while deleting: no recording may start meanwhile.
            if let running = RecorderLock.running(databasePath: path) {
                throw RecorderError.recordingInProgress(action: all ? "delete every session" : "delete the database",
                                                        sessionID: running.sessionID, pid: running.pid, databasePath: path)
            }
            try confirm(question)
            try RecorderLock.whileNotRecording(databasePath: path,
                                               action: all ? "delete every session" : "delete the database") {
                if all {
                    let report = try SessionDatabase(path: path).deleteAllSessions()
                    Self.tell(report)
                    Console.note("deleted \(report.sessionIDs.count) session\(report.sessionIDs.count == 1 ? "" : "s") from \(path)")
                } else {
                    Self.tell(try SessionDatabase.deleteDatabase(path: path))
                    // A detached recorder's log goes with its database: its lines name the sessions.
                    let log = BackgroundRecorder.logPath(databasePath: path)
                    if FileManager.default.fileExists(atPath: log) {
                        try FileManager.default.removeItem(atPath: log)
                        Console.note("removed \(log)")
                    }
                    Console.note("deleted \(path)")
                }
            }
        }

        /// `--app-id LABEL`: the participant's sessions, videos and calibrations, in one step.
        private func deleteParticipant(_ label: String, path: String) throws {
            guard FileManager.default.fileExists(atPath: path) else {
                throw StoreError.noSessionsWithAppID(label: label, databasePath: path)
            }
            let theirs = Set(try SessionDatabase.openForReading(path: path).summaries()
                .filter { $0.header.appID == label }.map { $0.header.id.uppercased() })
            let report = try RecorderLock.whileNotRecording(
                databasePath: path, action: "delete the sessions of \(label)",
                allowed: { !theirs.contains($0.sessionID.uppercased()) && $0.sessionID != RecorderInfo.unknownSession }
            ) { try SessionDatabase(path: path).deleteParticipant(appID: label) }
            Console.output((report.deletion.sessionIDs + report.calibrationIDs).map { $0 + "\n" }.joined())
            Self.tell(report.deletion)
            Console.note("deleted \(Formatting.counted(report.deletion.sessionIDs.count, "session")) and "
                         + "\(Formatting.counted(report.calibrationIDs.count, "calibration")) of \(label); exported files "
                         + "(JSON, CSV, BIDS) and copies on a lab server are not touched (docs/Lab.md, Withdrawal)")
        }

        /// Names on stderr every file removed with the sessions, and every file a session named that
        /// was not its own and so was left.
        static func tell(_ report: DeletionReport) {
            for file in report.removedFiles { Console.note("removed \(file)") }
            for file in report.keptFiles {
                Console.note("kept \(file): it is not a video this database's recorder saved (its header does not name the session)")
            }
        }

        private func confirm(_ question: String) throws {
            if yes { return }
            guard Console.stdinIsTerminal else {
                throw UsageError(message: "refusing to delete without confirmation: stdin is not a terminal. Add --yes.")
            }
            guard Console.confirm(question) else {
                Console.note("nothing deleted")
                throw ExitCode.failure
            }
        }
    }
}
