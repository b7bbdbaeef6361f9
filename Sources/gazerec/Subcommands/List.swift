import ArgumentParser
import Foundation
import GazeAnalysis
import GazeModel
import JSONStream
import Recorder
import SessionStore

extension Gazerec {
    /// `gazerec list`: the stored sessions.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the stored sessions, oldest first.",
            discussion: "Columns: id, appID, begin time (UTC), duration (s), scanPath samples, blend-shape samples.")

        @OptionGroup var store: ReadableStoreOptions

        @Flag(help: "Print a JSON array of session summaries.")
        var json = false

        @Flag(help: "Print one session id per line (for scripts).")
        var ids = false

        func validate() throws {
            if json && ids { throw ValidationError("Use either --json or --ids, not both.") }
        }

        func run() throws {
            // Opened for reading first: a file that is no session database (an empty one) is
            // refused before anything could write a schema into it.
            let database = try store.openForReading()
            // A session whose recorder died is closed here (marked interrupted), where the file
            // may be written; an archive on a read-only share is listed as it is.
            if let cleanup = try DeadRecordings.closeIfWritable(databasePath: store.resolvedPath) {
                cleanup.tellClosed()
            }
            if ids {
                let all = try database.sessionIDs()
                Console.output(all.map { $0 + "\n" }.joined())
                return
            }
            let summaries = try database.summaries()
            if json {
                Console.output(try JSONDocument.text(.array(summaries.map { try SummaryJSON.value($0) })))
                return
            }
            if summaries.isEmpty {
                Console.note("no sessions in \(store.resolvedPath).")
                return
            }
            var rows = [["ID", "APP ID", "BEGIN (UTC)", "DURATION S", "GAZE", "BLEND-SHAPE FRAMES", "STATE"]]
            for summary in summaries {
                // Frames with blend shapes (the longest series), not the samples of all series added up.
                let series = summary.blendShapeSampleCounts
                let frames = series.map(\.count).max() ?? 0
                let blend = series.count > 1 ? "\(frames) × \(series.count)" : "\(frames)"
                let state = summary.interrupted ? "interrupted"
                    : summary.header.endTimeSeconds == nil ? "open"
                    : summary.header.gazerecExtension?.endedBy != nil ? "ended early" : "ended"
                rows.append([
                    summary.header.id, summary.header.appID, Formatting.isoTime(summary.header.beginTimeSeconds),
                    summary.durationSeconds.map { Formatting.fixed($0, 3) } ?? "-",
                    "\(summary.gazeSampleCount)", "\(blend)", state,
                ])
            }
            Console.output(Formatting.table(rows))
        }
    }
}
