import ArgumentParser
import GazeModel
import JSONStream
import Recorder

extension Gazerec {
    /// `gazerec status`: whether a recording runs, and how it goes.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show whether a recording is running, and its figures.")

        @OptionGroup var store: StoreOptions

        @Flag(help: "Print a JSON object.")
        var json = false

        func run() throws {
            let path = store.resolvedPath
            let recorder = RecorderLock.running(databasePath: path)
            // Only the running recorder's own figures: a status file another process left is a dead
            // recorder's (removed when nobody records; a new recorder writes over it within half a second).
            let status = recorder.flatMap { live in
                RecorderStatus.read(databasePath: path).flatMap { $0.pid == live.pid ? $0 : nil }
            }
            if recorder == nil { RecorderLock.removeDeadRecorderFiles(databasePath: path) }
            // Nothing records, yet the log holds commits: the .sqlite alone lacks them.
            let unfolded = recorder == nil ? UnfoldedLog.bytes(databasePath: path).map {
                UnfoldedLog.text(databasePath: path, bytes: $0)
            } : nil
            if json {
                var report = StatusReport(recorder: recorder, status: status)
                report.warning = report.warning ?? unfolded
                Console.output(try JSONDocument.text(encoding: report))
                return
            }
            guard let recorder else {
                Console.output("not recording\n")
                if let unfolded { Console.note("warning: " + unfolded) }
                return
            }
            var lines = ["recording session \(recorder.sessionID) (process \(recorder.pid))"]
            if let status {
                lines.append("source      \(status.source)")
                lines.append("elapsed     \(Formatting.fixed(status.elapsedSeconds, 1)) s")
                lines.append("frames      \(status.frames) (\(Formatting.fixed(status.achievedFramesPerSecond, 1)) fps achieved, \(status.droppedFrames) dropped)")
                lines.append("face found  \(Formatting.fixed(status.faceFoundPercent, 1)) % of frames; now \(status.trackingState)")
                lines.append("blinks      \(status.blinks)")
                if let cpu = status.cpuPercentOfOneCore {
                    lines.append("CPU         \(Formatting.fixed(cpu, 1)) % of one core (the recorder, all its threads)")
                }
                if let warning = status.warning { lines.append("warning     \(warning)") }
            } else {
                lines.append("starting (no figures yet)")
            }
            Console.output(lines.joined(separator: "\n") + "\n")
        }
    }
}

/// `status --json`: members in this order, those without a value left out; figures rounded as shown.
struct StatusReport: Encodable {
    var running: Bool
    var sessionID: String?
    var pid: Int32?
    var source: String?
    var elapsedSeconds: Double?
    var frames: Int?
    var achievedFramesPerSecond: Double?
    var droppedFrames: Int?
    var faceFoundPercent: Double?
    var blinks: Int?
    var trackingState: String?
    var cpuPercentOfOneCore: Double?
    var warning: String?

    init(recorder: RecorderInfo?, status: RecorderStatus?) {
        running = recorder != nil
        sessionID = recorder?.sessionID
        pid = recorder?.pid
        guard let status else { return }
        source = status.source
        elapsedSeconds = status.elapsedSeconds.rounded(toDecimals: 3)
        frames = status.frames
        achievedFramesPerSecond = status.achievedFramesPerSecond.rounded(toDecimals: 2)
        droppedFrames = status.droppedFrames
        faceFoundPercent = status.faceFoundPercent.rounded(toDecimals: 1)
        blinks = status.blinks
        trackingState = status.trackingState.description
        cpuPercentOfOneCore = status.cpuPercentOfOneCore?.rounded(toDecimals: 1)
        warning = status.warning
    }
}
