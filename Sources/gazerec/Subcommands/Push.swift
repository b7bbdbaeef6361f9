import ArgumentParser
import Foundation
import GazeCalibration
import GazeModel
import JSONStream
import LabServer
import Recorder
import SessionStore

extension Gazerec {
    /// `gazerec push ADDRESS`: this station's finished sessions and its calibrations to the lab's server.
    struct Push: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send finished sessions and calibrations to a lab's PostgreSQL server.",
            discussion: """
                ADDRESS is a PostgreSQL URI, e.g. postgres://room-2@lab-server/gazerec, naming this \
                station's own role ('gazerec lab add-station'): the server records that role as the \
                station of each session. The password comes from PGPASSFILE, ~/.pgpass or PGPASSWORD, \
                never the command line, and TLS is used when the server offers it. Each session is one \
                transaction: the server has it whole or not at all, so an interrupted push is simply run \
                again. A session whose recorder died is closed first (as 'gazerec repair' does) and sent; \
                one still being recorded is skipped and named. Every calibration of the station goes too, \
                and the summary counts them. A session or calibration the server already has with the \
                same content is skipped; the same id with other content is an error unless --replace \
                (which needs an analyst role); one withdrawn ('gazerec lab erase') is refused, named. \
                Prints one line per session: its id and added, unchanged or replaced. Exits 0 when every \
                session and calibration was sent, or skipped as still being recorded. Read the server back with 'gazerec --database ADDRESS list|show|export|…' \
                (docs/Lab.md).
                """)

        @OptionGroup var store: ReadableStoreOptions

        @Argument(help: ArgumentHelp("The server: a PostgreSQL URI or connection string.", valueName: "address"))
        var address: String

        @Argument(help: "Session ids (or unambiguous prefixes) to send.")
        var ids: [String] = []

        @Flag(help: "Send every finished session.")
        var all = false

        @Option(help: ArgumentHelp("Send the finished sessions begun on or after this time: ISO 8601 "
                                   + "(2026-11-24T09:00, seconds and zone optional; UTC without a zone), a day "
                                   + "(2026-11-24, UTC), Unix seconds, or a duration back from now (90m, 2h, 7d).",
                                   valueName: "time"))
        var since: String?

        /// Refused: the server records the role a station logs in as.
        @Option(help: .hidden)
        var station: String?

        @Flag(help: "Overwrite sessions the server has with other content (needs a role that may delete).")
        var replace = false

        @Flag(help: ArgumentHelp("Keep running: push each session as its recording ends (the database is looked at "
                                 + "every 2 s), until Ctrl-C or SIGTERM. A server that goes away is tried again."))
        var watch = false

        func validate() throws {
            let choices = (ids.isEmpty ? 0 : 1) + (all ? 1 : 0) + (since == nil ? 0 : 1)
            if watch && !ids.isEmpty {
                throw ValidationError("--watch pushes sessions as they end; give --since DATE or nothing, not ids.")
            }
            guard choices == 1 || (watch && choices == 0) else {
                throw ValidationError("Say which sessions to send: ids, --all or --since DATE (one of them).")
            }
            if let since, SinceTime.seconds(since) == nil {
                throw ValidationError("--since \(since): give an ISO 8601 time (2026-11-24T09:00, UTC unless it names "
                                      + "a zone), a day (2026-11-24), Unix seconds or a duration (90m, 2h, 7d).")
            }
            if station != nil {
                throw ValidationError("--station is not taken any more: the server records the role each station logs "
                                      + "in as. Give each station its own role ('gazerec lab add-station NAME') and "
                                      + "push with its address.")
            }
        }

        func run() throws {
            if watch { return try runWatching() }
            if ProcessInfo.processInfo.environment["GAZEREC_STATION"] != nil {
                Console.note("note: GAZEREC_STATION is ignored: the server records the role this station logs in as")
            }
            try closeDeadRecordings()
            let database = try store.openForReading()
            let summaries = try database.summaries()
            let chosen: [SessionSummary]
            if !ids.isEmpty {
                let resolved = try ids.map { try database.summary(id: $0).header.id }
                chosen = summaries.filter { resolved.contains($0.header.id) }
            } else {
                chosen = summaries.filter { $0.header.beginTimeSeconds >= sinceSeconds }
            }
            let server = try LabDatabase(address: address)
            let tally = try sync.push(chosen, from: database, to: server,
                                      recordingSessionID: RecorderLock.running(databasePath: store.resolvedPath)?.sessionID,
                                      report: Self.say)
            Console.note(tally.summary(address: address + (server.connection.usesTLS ? " (TLS)" : "")))
            if tally.failures > 0 { throw ExitCode.failure }
        }

        private var sync: StationSync { StationSync(address: address, replace: replace) }

        private var sinceSeconds: Double { since.flatMap { SinceTime.seconds($0) } ?? -.infinity }

        /// Closes the sessions whose recorder died (as `list` and `repair` do), so they are sent, not
        /// taken for recordings still running; a database that cannot be written is left as it is.
        private func closeDeadRecordings() throws {
            guard let cleanup = try DeadRecordings.closeIfWritable(databasePath: store.resolvedPath) else { return }
            cleanup.tellClosed()
        }

        /// Every 2 s: the finished sessions not pushed yet in this run, until a stop signal.
        private func runWatching() throws {
            let stop = StopRequest()
            let signals = SignalHandling(stop: stop)
            defer { signals.restore() }
            Console.note("watching \(store.resolvedPath): each session goes to \(address) when its recording ends; "
                         + "stop with Ctrl-C")
            let station = StationSync.Station(
                open: { FileManager.default.fileExists(atPath: store.resolvedPath) ? try store.openForReading() : nil },
                recordingSessionID: { RecorderLock.running(databasePath: store.resolvedPath)?.sessionID })
            try sync.watch(station, sinceSeconds: sinceSeconds, shouldStop: { stop.isRequested },
                           unreachable: { Console.note("warning: \($0) Trying again in 2 s.") }, report: Self.say)
        }

        /// One session's (or withdrawn calibration's) push on stdout (pushed) or stderr (skipped, not sent).
        private static func say(_ event: StationSync.Event) {
            switch event {
            case let .pushed(id, outcome): Console.output("\(id)\t\(outcome.rawValue)\n")
            case .stillRecording(let id): Console.note("skipped \(id): it is still being recorded; push it once it has ended")
            case .unclosed(let id): Console.error(StationSync.Tally.unclosedMessage(id))
            case .refused(_, let error), .calibrationWithdrawn(_, let error): Console.error(ErrorHints.message(for: error))
            case .unreadable(_, let error): Console.error(ErrorHints.message(for: error))
            }
        }
    }
}

extension StationSync.Tally {
    /// What became of the station's calibrations, for the summary.
    private var calibrations: String {
        var parts = ["\(calibrationsSent) sent"]
        if calibrationsUnchanged > 0 { parts.append("\(calibrationsUnchanged) already there unchanged") }
        if withdrawnCalibrations > 0 { parts.append("\(withdrawnCalibrations) withdrawn, refused (see above)") }
        return "calibrations: " + parts.joined(separator: ", ")
    }

    /// The one line on stderr after a push.
    func summary(address: String) -> String {
        var text = "pushed \(sent) session\(sent == 1 ? "" : "s") to \(address)"
        if unchanged > 0 { text += "; \(unchanged) already there unchanged" }
        if !stillRecording.isEmpty {
            text += "; skipped \(stillRecording.count) still being recorded: " + stillRecording.joined(separator: ", ")
        }
        if !unreadable.isEmpty {
            text += "; \(unreadable.count) damaged, not sent: " + unreadable.joined(separator: ", ")
        }
        let others = failures - withdrawnCalibrations - unreadable.count
        if others > 0 { text += "; \(others) not sent (see above)" }
        return text + "; " + calibrations
    }

    /// A session left open whose recorder is gone, in a database this process may not write to.
    static func unclosedMessage(_ id: String) -> String {
        "session \(id) was not sent: its recorder died and it was never closed, and this database cannot be written "
            + "to close it. Run 'gazerec repair' where the file is writable, then push again."
    }
}

extension LabServerError: RuntimeFailure {}
