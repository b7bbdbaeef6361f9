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
            let status = recorder == nil ? nil : RecorderStatus.read(databasePath: path)
            if json {
                let sink = MemoryByteSink()
                let writer = JSONWriter(sink: sink, pretty: true)
                try writer.beginObject()
                try writer.key("running"); try writer.bool(recorder != nil)
                if let recorder {
                    try writer.key("sessionID"); try writer.string(recorder.sessionID)
                    try writer.key("pid"); try writer.integer(Int64(recorder.pid))
                }
                if let status {
                    try writer.key("source"); try writer.string(status.source)
                    try writer.key("elapsedSeconds"); try writer.number(status.elapsedSeconds.rounded(toDecimals: 3))
                    try writer.key("frames"); try writer.integer(Int64(status.frames))
                    try writer.key("achievedFramesPerSecond"); try writer.number(status.achievedFramesPerSecond.rounded(toDecimals: 2))
                    try writer.key("droppedFrames"); try writer.integer(Int64(status.droppedFrames))
                    try writer.key("faceFoundPercent"); try writer.number(status.faceFoundPercent.rounded(toDecimals: 1))
                    try writer.key("blinks"); try writer.integer(Int64(status.blinks))
                    try writer.key("trackingState"); try writer.string(status.trackingState.description)
                    if let cpu = status.cpuPercentOfOneCore {
                        try writer.key("cpuPercentOfOneCore"); try writer.number(cpu.rounded(toDecimals: 1))
                    }
                    if let warning = status.warning { try writer.key("warning"); try writer.string(warning) }
                }
                try writer.endObject()
                try writer.byte(0x0A)
                try writer.flush()
                Console.output(sink.text)
                return
            }
            guard let recorder else {
                Console.output("not recording\n")
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
