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
            let scope: DeletionScope = if let appID { .participant(appID: appID) } else if !ids.isEmpty { .sessions(ids) }
                else if all { .everySession } else { .databaseFile }
            let outcome = try SessionDeletion(databasePath: path, scope: scope).run { count in
                let sessions = Formatting.counted(count, "session")
                try confirm(all ? "Delete all \(sessions) in \(path)?"
                            : "Delete the database file \(path) and everything in it (\(sessions))?")
            }
            switch scope {
            case .sessions:
                Console.output(outcome.sessionIDs.map { $0 + "\n" }.joined())
                Self.tell(outcome)
                Console.note("deleted \(ids.count) session\(ids.count == 1 ? "" : "s")")
            case .participant(let label):
                Console.output((outcome.sessionIDs + outcome.calibrationIDs).map { $0 + "\n" }.joined())
                Self.tell(outcome)
                for id in outcome.calibrationIDs {
                    guard let sessions = outcome.calibrationsSharedWithKeptSessions[id] else { continue }
                    Console.note(Formatting.calibrationSharedNote(id, named: label, keptSessions: sessions))
                }
                Console.note("deleted \(Formatting.counted(outcome.sessionIDs.count, "session")) and "
                             + "\(Formatting.counted(outcome.calibrationIDs.count, "calibration")) of \(label); exported files "
                             + "(JSON, CSV, BIDS) and copies on a lab server are not touched (docs/Lab.md, Withdrawal)")
            case .everySession, .databaseFile:
                guard outcome.databaseExisted else { return Console.note("nothing to delete: \(path) does not exist.") }
                Self.tell(outcome)
                Console.note(all ? "deleted \(Formatting.counted(outcome.sessionIDs.count, "session")) from \(path)"
                             : "deleted \(path) and its \(Formatting.counted(outcome.sessionIDs.count, "session"))")
            }
        }

        /// Names on stderr every file removed with the sessions, and every file a session named that
        /// was not its own and so was left.
        static func tell(_ outcome: SessionDeletion.Outcome) {
            for file in outcome.removedFiles { Console.note("removed \(file)") }
            for file in outcome.keptFiles {
                Console.note("kept \(file): it is not this database's own video (outside its folder, as a copy names "
                             + "the original's, or its header does not name the session)")
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
