import ArgumentParser
import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import JSONStream
import Recorder
import SessionStore

/// Built-in target layouts for --points.
enum CalibrationPoints: Int, CaseIterable, ExpressibleByArgument {
    case five = 5
    case nine = 9
    case thirteen = 13

    var layout: CalibrationLayout { CalibrationLayout(rawValue: rawValue)! }
}

extension Gazerec {
    /// `gazerec calibrate`: targets on the terminal, a fitted mapping, its accuracy, saved.
    struct Calibrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Calibrate gaze: look at targets on the terminal; the fitted mapping and its accuracy are saved.",
            discussion: """
                The terminal stands for the screen (make it full screen): targets appear one after \
                the other, each filling its progress bar while you look at it; then validation targets \
                measure the accuracy, reported per target and overall in screen points (and in degrees \
                with --screen-size-mm and --distance-mm). Space starts or shows a point again (S skips it), Esc \
                cancels without saving. The calibration's id goes to stdout; 'gazerec start' applies the newest \
                one for its screen. Without a terminal, --script FILE gives the target schedule (see \
                docs/Calibration.md), so a video of someone following known targets calibrates end to end.
                """)

        @OptionGroup var store: StoreOptions

        @OptionGroup var capture: CaptureOptions

        @Option(help: ArgumentHelp("Calibration targets, plus 4 validation targets (default 9; interactive only: a "
                                   + "script names its own).", valueName: "5|9|13"))
        var points: CalibrationPoints?

        @Option(help: ArgumentHelp("Screen size in screen points (default: the terminal's size in pixels, when it tells).",
                                   valueName: "WxH"))
        var screen: Size2D?

        @Option(help: ArgumentHelp("A name to find the calibration by (participant, setup).", valueName: "name"))
        var name: String?

        @OptionGroup var procedure: ProcedureOptions

        @OptionGroup var vision: VisionOptions

        @OptionGroup var picture: PictureOptions

        func validate() throws {
            if let name, name.isEmpty { throw ValidationError("--name must not be empty.") }
            if let name { try LabelArgument.check(name, as: "--name") }
            if procedure.script != nil && points != nil {
                throw ValidationError("--points sets the interactive layout; with --script the script lists the targets.")
            }
            try vision.validate()
        }

        func run() throws {
            let script = try checkedScript()
            try vision.checkModelExists()
            // Open (or create) the database first: a bad path fails before the camera starts.
            let database = try store.open()
            let input = try vision.input(capture.request(paced: script == nil, mirror: picture.mirror, rotation: picture.rotate))
            defer { input.stop() }
            let seating = SeatingWarning(deferred: script == nil)
            input.pipeline.checkSeatingOverFirstSecond(tell: seating.tell)
            let stop = StopRequest()
            let signals = SignalHandling(stop: stop)
            defer { signals.restore() }
            let runner = ProcedureRunner(noun: "calibration")
            let outcome = try runner.run(script: script, screen: screen, seating: seating) { display in
                try CalibrationRun(vision: input, stop: stop, database: database).run(
                    script.map { .script($0) } ?? .layout((points ?? .nine).layout), settings: procedure.settings,
                    display: display, name: name, focalLengthPixels: vision.focalLength)
            }
            let record = try runner.requireFinished(outcome, sourceName: input.opened.path)
            Console.write(CalibrationReport.text(record))
            if let warning = CalibrationReport.qualityWarning(record.validation, screenWidth: record.screenWidth,
                                                              screenHeight: record.screenHeight) {
                Console.note(warning)
            }
            Console.note("saved calibration \(record.id); 'gazerec start' applies it to recordings on this "
                         + "\(Int(record.screenWidth))x\(Int(record.screenHeight)) screen")
            Console.output(record.id + "\n")
        }

        /// The script, when one is given, checked to hold enough calibration targets; else a terminal to draw on.
        private func checkedScript() throws -> CalibrationScript? {
            if procedure.script == nil && !TerminalScreen.available {
                throw UsageError(message: "calibrate is interactive and needs a terminal, but stdin is not one. Run it "
                                 + "in a terminal, or give the target schedule with --script FILE (docs/Calibration.md).")
            }
            let parsedScript = try procedure.script.map(CalibrationScript.read)
            if let parsedScript, let file = procedure.script {
                try parsedScript.requireCalibrationTargets(CalibrationFitter().minimumPoints, file: file == "-" ? "<stdin>" : file)
            }
            return parsedScript
        }
    }
}
