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

extension Gazerec {
    /// `gazerec validate`: how accurate a stored calibration still is, without refitting it.
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure how accurate a stored calibration still is (a drift check between blocks): "
                + "validation targets only, nothing refitted or changed.",
            discussion: """
                Shows five validation targets (the centre and four at 30 %/70 %) on the terminal as \
                'calibrate' does, maps the frames with the stored calibration and reports accuracy and \
                precision per target and overall, beside the calibration's own. The report is a table \
                on stderr and a JSON object on stdout (docs/Calibration.md). --script FILE runs it from \
                a schedule of 'validate' lines instead of keys.
                """)

        @OptionGroup var store: StoreOptions

        @OptionGroup var capture: CaptureOptions

        @Option(help: ArgumentHelp("The calibration to check: an id or 'latest'.", valueName: "id"))
        var calibration: String = "latest"

        @OptionGroup var procedure: ProcedureOptions

        @OptionGroup var vision: VisionOptions

        @OptionGroup var picture: PictureOptions

        func run() throws {
            let script = try checkedScript()
            let database = try store.openForReading(sessions: .none)
            let record = try database.chooseCalibration(.id(calibration), screen: nil, focalLengthPixels: vision.focalLength)!
            try vision.checkModelExists()
            let input = try vision.input(capture.request(paced: script == nil, mirror: picture.mirror, rotation: picture.rotate),
                                         calibrationFocalLength: record.focalLengthPixels,
                                         calibrationHeadPoseModel: record.headPoseModel)
            defer { input.stop() }
            let stop = StopRequest()
            let signals = SignalHandling(stop: stop)
            defer { signals.restore() }
            let runner = ProcedureRunner(noun: "validation")
            let screen = Size2D(width: Int(record.screenWidth), height: Int(record.screenHeight))
            let outcome = try runner.run(script: script, screen: screen) { display in
                try ValidationRun(vision: input, stop: stop).run(record, script: script, settings: procedure.settings,
                                                                 display: display)
            }
            let report = try runner.requireFinished(outcome, sourceName: input.opened.path)
            try Self.report(report, record: record, source: input.opened.path,
                            degrees: procedure.viewing != nil || record.geometry != nil)
        }

        /// The script, when one is given, checked to list only validation targets; else a terminal to draw on.
        private func checkedScript() throws -> CalibrationScript? {
            if procedure.script == nil && !TerminalScreen.available {
                throw UsageError(message: "validate is interactive and needs a terminal, but stdin is not one. Run it in "
                                 + "a terminal, or give the target schedule with --script FILE (docs/Calibration.md).")
            }
            let parsedScript = try procedure.script.map(CalibrationScript.read)
            if let parsedScript, let line = parsedScript.entries.first(where: { $0.kind == .calibration })?.line {
                throw InputFailure(message: "\(procedure.script!):\(line): a validation script lists only 'validate' targets.",
                                   missing: false)
            }
            return parsedScript
        }

        /// The report: a table on stderr (now and when calibrated), a warning when poor, JSON on stdout.
        private static func report(_ report: ValidationReport, record: CalibrationRecord, source: String, degrees: Bool) throws {
            var text = "validation of calibration \(record.id)\(record.name.map { " (\($0))" } ?? "")  "
                + "made \(Formatting.isoTime(record.createdAtSeconds))\n"
            text += CalibrationReport.validationTable(report, degrees: degrees)
            if report.accuracyPoints.isFinite { text += "now: " + CalibrationReport.overall(report) + "\n" }
            if let original = record.validation, original.accuracyPoints.isFinite {
                text += "when calibrated: " + CalibrationReport.overall(original) + "\n"
            }
            Console.write(text)
            if let warning = CalibrationReport.qualityWarning(report, screenWidth: record.screenWidth,
                                                              screenHeight: record.screenHeight) {
                Console.note(warning)
            }
            Console.output(try JSONDocument.text(json(report, record: record, source: source, degrees: degrees)))
        }

        /// The report on stdout.
        static func json(_ report: ValidationReport, record: CalibrationRecord, source: String, degrees: Bool) -> JSONValue {
            func number(_ value: Double?) -> JSONValue { value.flatMap { $0.isFinite ? .number($0) : nil } ?? .null }
            var members: [(String, JSONValue)] = [
                ("calibration", .string(record.id)),
                ("validatedAt", .number(SystemClock.unixTime())),
                ("source", .string(source)),
                ("accuracyPoints", number(report.accuracyPoints)),
                ("precisionPoints", number(report.precisionPoints)),
            ]
            if degrees {
                members.append(("accuracyDegrees", number(report.accuracyDegrees)))
                members.append(("precisionDegrees", number(report.precisionDegrees)))
            }
            members.append(("calibrationAccuracyPoints", number(record.validation?.accuracyPoints)))
            members.append(("targets", .array(report.points.map { point in
                var target: [(String, JSONValue)] = [
                    ("x", .number(point.target.x)), ("y", .number(point.target.y)), ("samples", .number(Double(point.samples))),
                    ("accuracyPoints", number(point.accuracyPoints)), ("precisionPoints", number(point.precisionPoints)),
                ]
                if degrees {
                    target.append(("accuracyDegrees", number(point.accuracyDegrees)))
                    target.append(("precisionDegrees", number(point.precisionDegrees)))
                }
                return .object(target)
            })))
            return .object(members)
        }
    }
}
