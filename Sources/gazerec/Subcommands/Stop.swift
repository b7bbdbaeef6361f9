import ArgumentParser
import Foundation
import GazeModel
import JSONStream
import Recorder
import SessionStore

extension Gazerec {
    /// `gazerec stop`: tells the running recorder to finish and waits for its session to close.
    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop the running recording and print its session id once the session is closed.")

        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("How long to wait for the session to close.", valueName: "seconds"))
        var timeout: Double = 15

        func validate() throws {
            if !(timeout > 0) { throw ValidationError("--timeout must be a positive number of seconds.") }
        }

        func run() throws {
            let path = store.resolvedPath
            guard let recorder = RecorderLock.running(databasePath: path) else {
                throw RecorderError.notRecording(databasePath: path)
            }
            if kill(recorder.pid, SIGTERM) != 0 && errno != ESRCH {
                throw RecorderError.lockFailed(path: RecorderLock.lockPath(databasePath: path),
                                               reason: "cannot signal process \(recorder.pid): \(String(cString: strerror(errno)))")
            }
            let database = try SessionDatabase(path: path)
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if (try? database.summary(id: recorder.sessionID))?.header.endTimeSeconds != nil,
                   RecorderLock.running(databasePath: path) == nil {
                    Console.output(recorder.sessionID + "\n")
                    return
                }
                usleep(50_000)
            }
            throw RecorderError.stopTimedOut(sessionID: recorder.sessionID, pid: recorder.pid, seconds: timeout)
        }
    }

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
                    try writer.key("trackingState"); try writer.string(status.trackingState)
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

    /// `gazerec repair`: closes sessions whose recorder died.
    struct Repair: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Close sessions left open by a recorder that died (endTime = last sample, marked interrupted).")

        @OptionGroup var store: StoreOptions

        func run() throws {
            guard let database = try store.openExisting() else {
                Console.note("nothing to repair: \(store.resolvedPath) does not exist.")
                return
            }
            let running = RecorderLock.running(databasePath: store.resolvedPath)?.sessionID
            let repaired = try database.repairInterruptedSessions(except: running)
            Console.output(repaired.map { $0 + "\n" }.joined())
            Console.note("closed \(repaired.count) interrupted session\(repaired.count == 1 ? "" : "s")")
        }
    }
}
