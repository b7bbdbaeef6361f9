import ArgumentParser
import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeVision
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
                with --screen-size-mm and --distance-mm). Space starts or retries a point, Esc cancels \
                without saving. The calibration's id goes to stdout; 'gazerec start' applies the newest \
                one for its screen. Without a terminal, --script FILE gives the target schedule (see \
                docs/Calibration.md), so a video of someone following known targets calibrates end to end.
                """)

        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("Camera device (default /dev/video0).", valueName: "path"))
        var device: String?

        @Option(help: ArgumentHelp("Use this video instead of a camera (played at its own pace when interactive).",
                                   valueName: "video"))
        var input: String?

        @Option(help: ArgumentHelp("Calibration targets, plus 4 validation targets (default 9; interactive only: a "
                                   + "script names its own).", valueName: "5|9|13"))
        var points: CalibrationPoints?

        @Option(help: ArgumentHelp("Screen size in screen points (default: the terminal's size in pixels, when it tells).",
                                   valueName: "WxH"))
        var screen: Size2D?

        @Option(name: .customLong("screen-size-mm"),
                help: ArgumentHelp("Visible screen area in millimetres, for accuracy in degrees.", valueName: "WxH"))
        var screenSizeMillimetres: MillimetreSize?

        @Option(name: .customLong("distance-mm"),
                help: ArgumentHelp("Eye-to-screen distance in millimetres, for accuracy in degrees.", valueName: "mm"))
        var distanceMillimetres: Double?

        @Option(help: ArgumentHelp("A name to find the calibration by (participant, setup).", valueName: "name"))
        var name: String?

        @Option(help: ArgumentHelp("Run without keys from this target schedule ('-' reads stdin).", valueName: "file"))
        var script: String?

        @Option(help: ArgumentHelp("Seconds after a target appears before samples are collected (default 0.6, or the "
                                   + "script's 'settle' line).", valueName: "seconds"))
        var settle: Double?

        @Option(help: ArgumentHelp("Seconds of samples to collect per target (interactive).", valueName: "seconds"))
        var collect: Double = 1.2

        @Option(help: ArgumentHelp("Usable samples a target needs, after outliers are dropped.", valueName: "n"))
        var minimumSamples: Int = 8

        @Option(help: ArgumentHelp("Camera frame size (WxH, default 640x480).", valueName: "WxH"))
        var resolution: Size2D?

        @Option(help: "Frame rate to request from the camera.")
        var fps: FrameRate = .thirty

        @OptionGroup var vision: VisionOptions

        func validate() throws {
            if device != nil && input != nil { throw ValidationError("Use either --device or --input, not both.") }
            if (screenSizeMillimetres == nil) != (distanceMillimetres == nil) {
                throw ValidationError("Give --screen-size-mm and --distance-mm together (both are needed for degrees).")
            }
            if let distanceMillimetres, !(distanceMillimetres > 0 && distanceMillimetres.isFinite) {
                throw ValidationError("--distance-mm must be a positive number of millimetres.")
            }
            if let settle, !(settle >= 0 && settle.isFinite) { throw ValidationError("--settle must be a number of seconds ≥ 0.") }
            if !(collect > 0 && collect.isFinite) { throw ValidationError("--collect must be a positive number of seconds.") }
            if minimumSamples < 1 { throw ValidationError("--minimum-samples must be at least 1.") }
            if let name, name.isEmpty { throw ValidationError("--name must not be empty.") }
            if script != nil && points != nil {
                throw ValidationError("--points sets the interactive layout; with --script the script lists the targets.")
            }
            try vision.validate()
        }

        private struct Finished: Error {}

        func run() throws {
            let scripted = script != nil
            if !scripted && !TerminalScreen.available {
                throw UsageError(message: "calibrate is interactive and needs a terminal (stdin and stdout), but "
                                 + "\(isatty(0) == 1 ? "stdout" : "stdin") is not one. Run it in a terminal, or give "
                                 + "the target schedule with --script FILE (docs/Calibration.md).")
            }
            let parsedScript = try script.map { path in
                if path == "-" {
                    let data = FileHandle.standardInput.readDataToEndOfFile()
                    return try CalibrationScript(text: String(decoding: data, as: UTF8.self), file: "<stdin>")
                }
                return try CalibrationScript(path: path)
            }
            try vision.checkModelExists()
            // Open (or create) the database first: a bad path fails before the camera starts.
            let database = try store.open()
            let model = try vision.loadModel()
            let (source, sourceKind, sourceName) = try openSource(paced: !scripted)
            defer { (source as? PrefetchingFrameSource)?.stop() }
            let pipeline = try FramePipeline(model: model, width: source.width, height: source.height,
                                             focalLengthPixels: vision.focalLength)
            let stop = StopRequest()
            let signals = SignalHandling(stop: stop)
            defer { signals.restore() }

            let (procedure, screenSize, inputEnded) = try parsedScript.map {
                try runScripted($0, source: source, pipeline: pipeline, stop: stop)
            } ?? runInteractive(source: source, pipeline: pipeline, stop: stop)

            switch procedure.phase {
            case .finished:
                break
            case .aborted:
                if stop.isRequested {
                    Console.error("calibration cancelled (Ctrl-C); nothing was saved.")
                    throw ExitCode(130)
                }
                throw CalibrateError.cancelled
            case .failed(let reason):
                throw CalibrateError.failed(reason: reason)
            default:
                if stop.isRequested { throw CalibrateError.stopped }
                throw CalibrateError.inputEnded(source: sourceName, atTarget: procedure.currentIndex, inputEnded: inputEnded)
            }
            let record = CalibrationRecord(
                name: name, createdAtSeconds: SystemClock.unixTime(), screenWidth: Double(screenSize.width),
                screenHeight: Double(screenSize.height), geometry: geometry(screenSize), sourceKind: sourceKind,
                sourceName: sourceName, sourceWidth: source.width, sourceHeight: source.height,
                focalLengthPixels: vision.focalLength, procedure: procedure,
                outcome: procedure.outcome!, gazerecVersion: RecorderVersion.current)
            try database.save(record)
            Console.write(CalibrationReport.text(record))
            if let warning = CalibrationReport.qualityWarning(record) { Console.note(warning) }
            Console.note("saved calibration \(record.id); 'gazerec start' applies it to recordings on this "
                         + "\(screenSize.width)x\(screenSize.height) screen")
            Console.output(record.id + "\n")
        }

        private func geometry(_ screen: Size2D) -> ScreenGeometry? {
            guard let size = screenSizeMillimetres, let distanceMillimetres else { return nil }
            return ScreenGeometry(widthPoints: Double(screen.width), heightPoints: Double(screen.height),
                                  widthMillimetres: size.width, heightMillimetres: size.height,
                                  distanceMillimetres: distanceMillimetres)
        }

        /// The camera (newest frames first) or the video (every frame; at its own pace when `paced`).
        private func openSource(paced: Bool) throws -> (FrameSource, String, String) {
            if let input {
                let video = try VideoFileSource(path: input)
                let timed: FrameSource = paced ? PacedFrameSource(video, originMonotonic: SystemClock.monotonic()) : video
                return (PrefetchingFrameSource(timed, policy: .lossless, capacity: 8), "file", input)
            }
            let size = resolution ?? Size2D(width: 640, height: 480)
            let path = device ?? "/dev/video0"
            let camera = try V4L2Camera(configuration: .init(path: path, width: size.width, height: size.height,
                                                             framesPerSecond: fps.rawValue))
            return (PrefetchingFrameSource(camera, policy: .keepNewest, capacity: 2), "camera", path)
        }

        // MARK: - Interactive

        private func runInteractive(source: FrameSource, pipeline: FramePipeline, stop: StopRequest) throws
            -> (CalibrationProcedure, Size2D, Bool) {
            let terminal = TerminalScreen()
            terminal.enter()
            defer { terminal.leave() }
            guard let screenSize = screen ?? terminal.pixelSize().map({ Size2D(width: $0.width, height: $0.height) }) else {
                terminal.leave()
                throw UsageError(message: "this terminal does not report its size in pixels; give the screen size the "
                                 + "terminal covers with --screen WxH (e.g. --screen 1920x1080 for a full-screen terminal).")
            }
            guard terminal.columns >= 40 && terminal.rows >= 12 else {
                terminal.leave()
                throw UsageError(message: "the terminal is \(terminal.columns)×\(terminal.rows) characters; calibration needs "
                                 + "at least 40×12 to place its targets apart. Make the terminal full screen.")
            }
            let view = CalibrationView(columns: terminal.columns, rows: terminal.rows,
                                       screenWidth: Double(screenSize.width), screenHeight: Double(screenSize.height))
            // Targets where they are really drawn: the centres of their cells.
            let targets = CalibrationProcedure.layoutTargets((points ?? .nine).layout, width: Double(screenSize.width),
                                                             height: Double(screenSize.height))
                .map { CalibrationTarget(kind: $0.kind, position: view.drawnPosition($0.position)) }
            var procedure = makeProcedure(targets, scripted: false, screen: screenSize, settle: nil)
            terminal.write(view.render(procedure))
            var inputEnded = true
            do {
                try pipeline.processAll(source) { features, _ in
                    for key in terminal.keys() {
                        switch key {
                        case .space: procedure.pressSpace()
                        case .escape, .quit: procedure.abort()
                        }
                    }
                    if stop.isRequested { procedure.abort() }
                    procedure.frame(GazeFeatures(features), faceFound: features.face != nil,
                                    timeSeconds: features.timestampSeconds)
                    if procedure.isDone || procedure.phase == .finished {
                        inputEnded = false
                        throw Finished()
                    }
                    terminal.write(view.render(procedure))
                }
            } catch is Finished {}
            return (procedure, screenSize, inputEnded)
        }

        private func makeProcedure(_ targets: [CalibrationTarget], scripted: Bool, screen: Size2D,
                                   settle scriptSettle: Double?) -> CalibrationProcedure {
            CalibrationProcedure(targets: targets, scripted: scripted, settleSeconds: settle ?? scriptSettle ?? 0.6,
                                 collectSeconds: collect,
                                 fitter: CalibrationFitter(minimumSamplesPerPoint: minimumSamples),
                                 geometry: geometry(screen))
        }

        // MARK: - Scripted

        private func runScripted(_ script: CalibrationScript, source: FrameSource, pipeline: FramePipeline,
                                 stop: StopRequest) throws -> (CalibrationProcedure, Size2D, Bool) {
            let fromScript = script.screenWidth.map { Size2D(width: Int($0), height: Int(script.screenHeight!)) }
            if let screen, let fromScript, screen.width != fromScript.width || screen.height != fromScript.height {
                throw UsageError(message: "--screen \(screen.width)x\(screen.height) disagrees with the script's "
                                 + "'screen \(fromScript.width)x\(fromScript.height)'. Give one, or make them agree.")
            }
            guard let screenSize = screen ?? fromScript else {
                throw UsageError(message: "a scripted calibration needs the screen size: give --screen WxH or a "
                                 + "'screen WxH' line in the script.")
            }
            let targets = script.targets(width: Double(screenSize.width), height: Double(screenSize.height))
            var procedure = makeProcedure(targets, scripted: true, screen: screenSize, settle: script.settleSeconds)
            let span = targets.compactMap(\.endSeconds).max() ?? 0
            Console.note("scripted calibration: \(targets.count) targets over \(Formatting.fixed(span, 1)) s of input")
            var inputEnded = true
            do {
                try pipeline.processAll(source) { features, _ in
                    if stop.isRequested { procedure.abort() }
                    procedure.frame(GazeFeatures(features), faceFound: features.face != nil,
                                    timeSeconds: features.timestampSeconds)
                    if procedure.isDone {
                        inputEnded = false
                        throw Finished()
                    }
                }
            } catch is Finished {}
            if inputEnded { procedure.inputEnded() }
            return (procedure, screenSize, inputEnded)
        }
    }
}

/// How a calibration run can end without a result.
enum CalibrateError: Error, RuntimeFailure {
    case cancelled
    case stopped
    case failed(reason: String)
    case inputEnded(source: String, atTarget: Int?, inputEnded: Bool)

    var description: String {
        switch self {
        case .cancelled:
            return "calibration cancelled (Esc); nothing was saved."
        case .stopped:
            return "calibration stopped before it finished; nothing was saved."
        case .failed(let reason):
            return reason + " Nothing was saved."
        case let .inputEnded(source, target, _):
            let at = target.map { " at target \($0 + 1)" } ?? ""
            return "\(source) ended\(at) before the calibration finished; nothing was saved. "
                + "Use a longer video, or fewer --points and a shorter --collect."
        }
    }
}

/// The report printed after calibrating and by `calibrations show`.
enum CalibrationReport {
    /// A sentence when the validation says the calibration is poor: above 2.5° (or, without a
    /// viewing geometry, above 5 % of the screen's diagonal), or a validation target without samples.
    static func qualityWarning(_ record: CalibrationRecord) -> String? {
        guard let validation = record.validation else { return nil }
        if validation.points.contains(where: { $0.samples == 0 }) {
            return "warning: a validation target got no gaze samples; the accuracy is measured on the others only."
        }
        let diagonal = (record.screenWidth * record.screenWidth + record.screenHeight * record.screenHeight).squareRoot()
        let poor = validation.accuracyDegrees.map { $0 > 2.5 } ?? (validation.accuracyPoints > 0.05 * diagonal)
        guard poor else { return nil }
        return "warning: the validation accuracy is poor for webcam eye tracking (usually 1–2.5°); check the light, "
            + "the camera's view of the eyes and the seating, and calibrate again before recording."
    }

    static func text(_ record: CalibrationRecord) -> String {
        var out = "calibration \(record.id)\(record.name.map { " (\($0))" } ?? "")  "
            + "\(Formatting.isoTime(record.createdAtSeconds))  screen \(Int(record.screenWidth))x\(Int(record.screenHeight)) pt  "
            + "\(record.mode), \(record.sourceKind) \(record.sourceName)\n"
        var rows: [[String]] = [["target", "x", "y", "collected", "used", "fit error pt"]]
        var number = 0
        for target in record.targets where target.kind == .calibration {
            number += 1
            rows.append(["\(number)", Formatting.fixed(target.position.x, 0), Formatting.fixed(target.position.y, 0),
                         "\(target.collected)", target.used.map(String.init) ?? "-",
                         target.meanErrorPoints.map { Formatting.fixed($0, 1) } ?? "-"])
        }
        out += Formatting.table(rows)
        let degrees = record.geometry != nil
        var validation: [[String]] = [["validation", "x", "y", "samples", "accuracy pt", "precision pt"]
                                      + (degrees ? ["accuracy °", "precision °"] : [])]
        number = 0
        for target in record.targets where target.kind == .validation {
            number += 1
            guard let result = target.validation else { continue }
            let measured = result.samples > 0
            validation.append(["\(number)", Formatting.fixed(target.position.x, 0), Formatting.fixed(target.position.y, 0),
                               "\(result.samples)", measured ? Formatting.fixed(result.accuracyPoints, 1) : "-",
                               measured ? Formatting.fixed(result.precisionPoints, 1) : "-"]
                              + (degrees ? [result.accuracyDegrees.map { Formatting.fixed($0, 2) } ?? "-",
                                            result.precisionDegrees.map { Formatting.fixed($0, 2) } ?? "-"] : []))
        }
        if validation.count > 1 { out += Formatting.table(validation) }
        if let report = record.validation, report.accuracyPoints.isFinite {
            out += "accuracy \(Formatting.fixed(report.accuracyPoints, 1)) pt"
            if let degrees = report.accuracyDegrees { out += " (\(Formatting.fixed(degrees, 2))°)" }
            out += ", precision \(Formatting.fixed(report.precisionPoints, 1)) pt"
            if let degrees = report.precisionDegrees { out += " (\(Formatting.fixed(degrees, 2))°)" }
            out += "; "
        }
        out += "fit error between targets (cross-validated) \(Formatting.fixed(record.crossValidationErrorPoints, 1)) pt\n"
        return out
    }
}
