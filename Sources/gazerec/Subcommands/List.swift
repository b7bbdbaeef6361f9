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
            if store.isWritable, let writable = try store.openExisting() {
                let running = RecorderLock.running(databasePath: store.resolvedPath)?.sessionID
                let repaired = try writable.repairInterruptedSessions(except: running)
                if !repaired.isEmpty {
                    Console.note("closed \(repaired.count) session\(repaired.count == 1 ? "" : "s") whose recorder had died: "
                                 + repaired.joined(separator: ", "))
                }
            }
            if ids {
                let all = try database.sessionIDs()
                Console.output(all.map { $0 + "\n" }.joined())
                return
            }
            let summaries = try database.summaries()
            if json {
                let sink = MemoryByteSink()
                let writer = JSONWriter(sink: sink, pretty: true)
                try writer.beginArray()
                for summary in summaries {
                    try writer.element()
                    try SummaryJSON.write(summary, to: writer)
                }
                try writer.endArray()
                try writer.byte(0x0A)
                try writer.flush()
                Console.output(sink.text)
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
                let state = summary.interrupted ? "interrupted" : (summary.header.endTimeSeconds == nil ? "open" : "ended")
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

/// The JSON shape of a session summary (`list --json`, `show --json`).
enum SummaryJSON {
    static func write(_ summary: SessionSummary, attention: AttentionReport? = nil, expressions: ExpressionReport? = nil,
                      to writer: JSONWriter) throws {
        let header = summary.header
        try writer.beginObject()
        try writer.key("id"); try writer.string(header.id)
        try writer.key("appID"); try writer.string(header.appID)
        try writer.key("beginTime"); try writer.number(header.beginTimeSeconds)
        if let end = header.endTimeSeconds { try writer.key("endTime"); try writer.number(end) }
        try writer.key("durationSeconds")
        if let duration = summary.durationSeconds { try writer.number(duration) } else { try writer.null() }
        try writer.key("gazeSamples"); try writer.integer(Int64(summary.gazeSampleCount))
        try writer.key("achievedRateHz")
        if let rate = summary.achievedRateHz { try writer.number(rate) } else { try writer.null() }
        try writer.key("blendShapeSamples")
        try writer.beginObject()
        for (name, count) in summary.blendShapeSampleCounts {
            try writer.key(name); try writer.integer(Int64(count))
        }
        try writer.endObject()
        try writer.key("interrupted"); try writer.bool(summary.interrupted)
        try writer.key("deviceModel"); try writer.string(header.deviceInfo.model)
        if let attention { try writer.key("attention"); try writer.value(attention.jsonValue) }
        if let expressions { try writer.key("expressions"); try writer.value(ExpressionText.json(expressions)) }
        try writer.endObject()
    }
}
