import ArgumentParser
import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import JSONStream
import Recorder

/// The terminal side of a calibration or validation run (`CalibrationRun`, `ValidationRun` in the
/// library): the display it runs on — the terminal full screen with keys and the drawing of the
/// targets, or a script's screen with a note — and the run's ending as the command's error.
struct ProcedureRunner {
    /// "calibration" or "validation", for messages.
    let noun: String

    /// Runs `body` on its display: for a script, the screen it agrees on with `screen` (`--screen`);
    /// otherwise the terminal full screen, `seating` saying its deferred warning once it is left.
    func run<Result>(script: CalibrationScript?, screen: Size2D?, seating: SeatingWarning? = nil,
                     _ body: (ProcedureDisplay) throws -> Result) throws -> Result {
        guard let script else { return try interactive(screen: screen, seating: seating, body) }
        let size = try script.screen(agreeingWith: screen)
        return try body(ProcedureDisplay(screenWidth: Double(size.width), screenHeight: Double(size.height), started: { start in
            let span = start.targets.compactMap(\.endSeconds).max() ?? 0
            Console.note("scripted \(noun): \(start.targets.count) targets over \(Formatting.fixed(span, 1)) s of input")
        }))
    }

    /// Full screen: the screen size is `screen`, else the terminal's size in pixels; the targets are
    /// drawn where the view places them, and keys drive the run.
    private func interactive<Result>(screen: Size2D?, seating: SeatingWarning?,
                                     _ body: (ProcedureDisplay) throws -> Result) throws -> Result {
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
        let display = ProcedureDisplay(
            screenWidth: Double(screenSize.width), screenHeight: Double(screenSize.height), interactive: true,
            shownAt: view.drawnPosition, started: { terminal.write(view.render($0)) },
            beforeFrame: { procedure in
                for key in terminal.keys() {
                    switch key {
                    case .space: procedure.pressSpace()
                    case .skip: procedure.pressSkip()
                    case .escape, .quit: procedure.abort()
                    }
                }
            }, afterFrame: { terminal.write(view.render($0)) })
        let result = try body(display)
        terminal.leave()
        seating?.flush()
        return result
    }

    /// The run's result, or, unless it finished, an error: cancelled (Esc: exit 1; Ctrl-C: exit 130),
    /// failed, or cut short.
    func requireFinished<Result>(_ outcome: ProcedureOutcome<Result>, sourceName: String) throws -> Result {
        switch outcome {
        case .finished(let result):
            return result
        case .ended(.interrupted):
            Console.error("\(noun) cancelled (Ctrl-C); nothing was saved.")
            throw ExitCode(130)
        case .ended(.cancelled):
            throw CalibrateError.cancelled(noun: noun)
        case .ended(.failed(let reason)):
            throw CalibrateError.failed(reason: reason)
        case .ended(.stopped), .ended(.finished):
            throw CalibrateError.stopped(noun: noun)
        case .ended(.inputEnded(let target)):
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
