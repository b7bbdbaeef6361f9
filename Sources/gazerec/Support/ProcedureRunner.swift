import ArgumentParser
import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import JSONStream
import Recorder

/// The terminal side of a calibration or validation run (`ProcedureRun` in the library): keys and
/// the drawing of the targets on the terminal, or a note for a scripted run; and the run's ending
/// as the command's error.
struct ProcedureRunner {
    let run: ProcedureRun
    /// "calibration" or "validation", for messages.
    let noun: String

    init(vision: VisionInput, stop: StopRequest, noun: String) {
        run = ProcedureRun(vision: vision, stop: stop)
        self.noun = noun
    }

    /// Full screen: the screen size is `screen`, else the terminal's size in pixels; `make` builds the
    /// procedure for the view (targets at their drawn positions). Returns it with the screen size
    /// and how the run ended.
    func interactive(screen: Size2D?, make: (CalibrationView, Size2D) -> CalibrationProcedure) throws
        -> (CalibrationProcedure, Size2D, ProcedureRun.Ending) {
        let terminal = TerminalScreen()
        terminal.enter()
        defer { terminal.leave() }
        let measured = screen == nil ? terminal.pixelSize() : nil
        let screenSource = screen != nil ? "--screen" : measured?.source ?? ""
        guard let screenSize = screen ?? measured.map({ Size2D(width: $0.width, height: $0.height) }) else {
            terminal.leave()
            throw UsageError(message: "this terminal does not report its size in pixels; give the screen size the "
                             + "terminal covers with --screen WxH (e.g. --screen 1920x1080 for a full-screen terminal).")
        }
        guard terminal.columns >= 40 && terminal.rows >= 12 else {
            terminal.leave()
            throw UsageError(message: "the terminal is \(terminal.columns)×\(terminal.rows) characters; the \(noun) needs "
                             + "at least 40×12 to place its targets apart. Make the terminal full screen.")
        }
        let view = CalibrationView(columns: terminal.columns, rows: terminal.rows,
                                   screenWidth: Double(screenSize.width), screenHeight: Double(screenSize.height),
                                   screenSource: screenSource)
        let procedure = make(view, screenSize)
        terminal.write(view.render(procedure))
        let (result, ending) = try run.run(procedure, untilFinished: true, beforeFrame: { procedure in
            for key in terminal.keys() {
                switch key {
                case .space: procedure.pressSpace()
                case .skip: procedure.pressSkip()
                case .escape, .quit: procedure.abort()
                }
            }
        }, afterFrame: { terminal.write(view.render($0)) })
        return (result, screenSize, ending)
    }

    /// Without keys, from the targets' time windows. Returns the procedure and how the run ended.
    func scripted(_ start: CalibrationProcedure) throws -> (CalibrationProcedure, ProcedureRun.Ending) {
        let span = start.targets.compactMap(\.endSeconds).max() ?? 0
        Console.note("scripted \(noun): \(start.targets.count) targets over \(Formatting.fixed(span, 1)) s of input")
        let (procedure, ending) = try run.run(start)
        return (procedure, ending)
    }

    /// Throws unless the run finished: cancelled (Esc: exit 1; Ctrl-C: exit 130), failed, or cut short.
    func requireFinished(_ ending: ProcedureRun.Ending, sourceName: String) throws {
        switch ending {
        case .finished:
            return
        case .interrupted:
            Console.error("\(noun) cancelled (Ctrl-C); nothing was saved.")
            throw ExitCode(130)
        case .cancelled:
            throw CalibrateError.cancelled(noun: noun)
        case .failed(let reason):
            throw CalibrateError.failed(reason: reason)
        case .stopped:
            throw CalibrateError.stopped(noun: noun)
        case .inputEnded(let target):
            throw CalibrateError.inputEnded(source: sourceName, atTarget: target, noun: noun)
        }
    }
}

/// How a calibration or validation run can end without a result.
enum CalibrateError: Error, RuntimeFailure {
    case cancelled(noun: String)
    case stopped(noun: String)
    case failed(reason: String)
    case inputEnded(source: String, atTarget: Int?, noun: String)

    var description: String {
        switch self {
        case .cancelled(let noun):
            return "\(noun) cancelled (Esc); nothing was saved."
        case .stopped(let noun):
            return "\(noun) stopped before it finished; nothing was saved."
        case .failed(let reason):
            return reason + " Nothing was saved."
        case let .inputEnded(source, target, noun):
            let at = target.map { " at target \($0 + 1)" } ?? ""
            return "\(source) ended\(at) before the \(noun) finished; nothing was saved. "
                + "Use a longer video, or fewer targets and a shorter --collect."
        }
    }
}
