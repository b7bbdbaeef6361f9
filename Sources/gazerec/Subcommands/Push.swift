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
                ADDRESS is a PostgreSQL URI, e.g. postgres://gazerec_station@lab-server/gazerec; the \
                password comes from PGPASSFILE, ~/.pgpass or PGPASSWORD, never the command line, and TLS \
                is used when the server offers it. Each session is one transaction: the server has it \
                whole or not at all, so an interrupted push is simply run again. A session the server \
                already has with the same content is skipped; the same id with other content is an error \
                unless --replace (which needs the analysis role). Prints one line per session: its id \
                and added, unchanged or replaced. Read the server back with \
                'gazerec --database ADDRESS list|show|export|…' (docs/Lab.md).
                """)

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("The server: a PostgreSQL URI or connection string.", valueName: "address"))
        var address: String

        @Argument(help: "Session ids (or unambiguous prefixes) to send.")
        var ids: [String] = []

        @Flag(help: "Send every finished session.")
        var all = false

        @Option(help: ArgumentHelp("Send the finished sessions begun on or after this day (YYYY-MM-DD, UTC) or "
                                   + "Unix time.", valueName: "date"))
        var since: String?

        @Option(help: ArgumentHelp("This station's label, stored with each session (default: GAZEREC_STATION).",
                                   valueName: "label"))
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
            if let since, Self.sinceSeconds(since) == nil {
                throw ValidationError("--since \(since): give a day as YYYY-MM-DD (UTC) or Unix seconds.")
            }
        }

        static func sinceSeconds(_ text: String) -> Double? {
            if let seconds = Double(text), seconds >= 0 { return seconds }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd"
            return formatter.date(from: text)?.timeIntervalSince1970
        }

        func run() throws {
            if watch { return try runWatching() }
            let database = try store.openForReading()
            let summaries = try database.summaries()
            let chosen: [SessionSummary]
            if !ids.isEmpty {
                let resolved = try ids.map { try database.summary(id: $0).header.id }
                chosen = summaries.filter { resolved.contains($0.header.id) }
            } else {
                chosen = summaries.filter { $0.header.beginTimeSeconds >= sinceSeconds }
            }
            let server = try LabServer(address: address)
            let failures = try push(chosen, from: database, to: server, quietlySkippingRecording: false)
            Console.note("pushed \(chosen.count) session\(chosen.count == 1 ? "" : "s") to \(address)"
                         + (server.connection.usesTLS ? " (TLS)" : ""))
            if failures > 0 { throw ExitCode.failure }
        }

        private var sinceSeconds: Double { since.flatMap(Self.sinceSeconds) ?? -.infinity }

        /// Every 2 s: the finished sessions not pushed yet in this run, until a stop signal.
        private func runWatching() throws {
            let stop = StopRequest()
            let signals = SignalHandling(stop: stop)
            defer { signals.restore() }
            var done: Set<String> = []
            var server: LabServer?
            Console.note("watching \(store.resolvedPath): each session goes to \(address) when its recording ends; "
                         + "stop with Ctrl-C")
            while !stop.isRequested {
                do {
                    if FileManager.default.fileExists(atPath: store.resolvedPath) {
                        let database = try store.openForReading()
                        let running = RecorderLock.running(databasePath: store.resolvedPath)?.sessionID
                        let ready = try database.summaries().filter {
                            $0.header.endTimeSeconds != nil && $0.header.id != running && !done.contains($0.header.id)
                                && $0.header.beginTimeSeconds >= sinceSeconds
                        }
                        if !ready.isEmpty {
                            let connected = try server ?? LabServer(address: address)
                            server = connected
                            _ = try push(ready, from: database, to: connected, quietlySkippingRecording: true)
                            done.formUnion(ready.map(\.header.id))
                        }
                    }
                } catch let error as LabServerError {
                    switch error {
                    case .connectionLost, .cannotConnect:
                        Console.note("warning: \(error) Trying again in 2 s.")
                        server = nil
                    default:
                        throw error
                    }
                }
                for _ in 0..<20 where !stop.isRequested { usleep(100_000) }
            }
        }

        /// Pushes sessions (and, first, every calibration); returns how many were refused. A lost
        /// connection ends the push (thrown); a refused session is reported and the rest go on.
        private func push(_ sessions: [SessionSummary], from database: SessionDatabase, to server: LabServer,
                          quietlySkippingRecording: Bool) throws -> Int {
            let running = RecorderLock.running(databasePath: store.resolvedPath)?.sessionID
            let label = station ?? ProcessInfo.processInfo.environment["GAZEREC_STATION"]
            let host = ProcessInfo.processInfo.hostName
            var failures = 0
            for calibration in try database.calibrations() {
                let document = try database.calibration(id: calibration.id).document
                _ = try server.pushCalibration(id: calibration.id, document: Data(document.utf8), station: label, host: host,
                                               replace: replace)
            }
            for summary in sessions {
                let id = summary.header.id
                if summary.header.endTimeSeconds == nil || id == running {
                    if !quietlySkippingRecording { Console.note("skipped \(id): it is still being recorded; push it once it has ended") }
                    continue
                }
                do {
                    let outcome = try server.push(sessionID: id, from: database, station: label, host: host, replace: replace)
                    Console.output("\(id)\t\(outcome.rawValue)\n")
                } catch let error as LabServerError {
                    if case .connectionLost = error { throw error }
                    failures += 1
                    Console.error("\(error)")
                }
            }
            return failures
        }
    }
}

extension LabServerError: RuntimeFailure {}
