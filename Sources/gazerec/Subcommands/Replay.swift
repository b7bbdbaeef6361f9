import ArgumentParser
import Dispatch
import Foundation
import GazeCore
import GazeModel
import JSONStream
import Recorder
import SessionStore

extension Gazerec {
    /// `gazerec replay SESSION`: the scan path played back in the terminal.
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play a session's scan path back in the terminal (q quits).",
            discussion: """
                The terminal stands for the screen. The gaze point (@) moves over the session's own \
                duration divided by --speed, leaving a fading trail; fixations (I-DT defaults) appear \
                numbered as they happen. q, Ctrl-C or the end of the session restores the terminal.
                """)

        @OptionGroup var store: ReadableStoreOptions

        @OptionGroup var interval: IntervalOptions

        @Argument(help: "The session id.")
        var id: String

        @Option(parsing: .unconditional, help: "Playback speed (2 = twice as fast).")
        var speed: Double = 1

        func validate() throws {
            if !(speed > 0 && speed.isFinite) { throw ValidationError("--speed must be a positive number.") }
        }

        func run() throws {
            // What there is to replay first (as fixations and plot do), then where to draw it.
            let database = try store.openForReading(sessions: .named([id]))
            let (samples, storedWidth, storedHeight) = try database.scanPath(id: id, between: interval.labels)
            guard TerminalScreen.available else {
                throw UsageError(message: "replay draws on a terminal: run it in one (stdin must be a terminal).")
            }
            let (width, height) = GazeSample.screen(of: samples, width: storedWidth, height: storedHeight)
            let first = samples[0], last = samples[samples.count - 1]
            let points = samples
            let header = try database.summary(id: id).header
            let fixations = header.fixationScale().defaultDetector.detect(points).fixations
            let duration = last.timestampSeconds - first.timestampSeconds

            let stop = StopRequest()
            let signals = SignalHandling(stop: stop)
            let screen = TerminalScreen()
            screen.enter()
            defer {
                screen.leave()
                signals.restore()
            }
            let canvas = GazeCanvas(columns: screen.columns, rows: max(1, screen.rows - 1),
                                    screenWidth: width > 0 ? width : 1920, screenHeight: height > 0 ? height : 1080)
            let start = DispatchTime.now().uptimeNanoseconds
            var index = 0
            var shownFixations = 0
            while !stop.isRequested {
                // q quits; other bytes (including terminal escape sequences) are ignored.
                var quit = false
                while let key = screen.key() { if key == UInt8(ascii: "q") || key == UInt8(ascii: "Q") { quit = true } }
                if quit { break }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 * speed
                let now = first.timestampSeconds + elapsed
                while index + 1 < samples.count && samples[index + 1].timestampSeconds <= now { index += 1 }
                while shownFixations < fixations.count && fixations[shownFixations].startSeconds <= now { shownFixations += 1 }
                let trail = samples[max(0, index - 15)...index].map { ($0.x, $0.y) }
                let numbered = fixations.prefix(shownFixations).enumerated().map { ($0.offset + 1, $0.element.x, $0.element.y) }
                let status = " replay \(id.prefix(8))  \(Formatting.fixed(min(elapsed, duration), 1)) / "
                    + "\(Formatting.fixed(duration, 1)) s  ×\(Formatting.fixed(speed, 1))  fixations \(shownFixations)  q quits"
                screen.write(canvas.render(trail: trail, fixations: numbered, status: status))
                if elapsed > duration + 0.5 { break }
                usleep(33_000)
            }
        }
    }
}
