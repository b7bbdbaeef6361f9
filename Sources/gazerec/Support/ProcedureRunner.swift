import ArgumentParser
import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import JSONStream
import Recorder

/// Drives a `CalibrationProcedure` with frames — on the terminal with keys, or from a script's
/// schedule — for `calibrate` and `validate`.
struct ProcedureRunner {
    let source: FrameSource
    let pipeline: FramePipeline
    let stop: StopRequest
    /// "calibration" or "validation", for messages.
    let noun: String

    private struct Finished: Error {}

    /// Full screen: the screen size is `screen`, else the terminal's size in pixels; `make` builds the
    /// procedure for the view (targets at their drawn positions). Returns it with the screen size
    /// and whether the input ran out first.
    func interactive(screen: Size2D?, make: (CalibrationView, Size2D) -> CalibrationProcedure) throws
        -> (CalibrationProcedure, Size2D, Bool) {
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
        var procedure = make(view, screenSize)
        terminal.write(view.render(procedure))
        var inputEnded = true
        do {
            try pipeline.processAll(source) { features, _ in
                for key in terminal.keys() {
                    switch key {
                    case .space: procedure.pressSpace()
                    case .skip: procedure.pressSkip()
                    case .escape, .quit: procedure.abort()
                    }
                }
                if stop.isRequested { procedure.abort() }
                procedure.frame(GazeFeatures(features.measurement), faceFound: features.face != nil, timeSeconds: features.timestampSeconds)
                if procedure.isDone || procedure.phase == .finished {
                    inputEnded = false
                    throw Finished()
                }
                terminal.write(view.render(procedure))
            }
        } catch is Finished {}
        return (procedure, screenSize, inputEnded)
    }

    /// Without keys, from the targets' time windows. Returns the procedure and whether the input ran out first.
    func scripted(_ start: CalibrationProcedure) throws -> (CalibrationProcedure, Bool) {
        var procedure = start
        let span = procedure.targets.compactMap(\.endSeconds).max() ?? 0
        Console.note("scripted \(noun): \(procedure.targets.count) targets over \(Formatting.fixed(span, 1)) s of input")
        var inputEnded = true
        do {
            try pipeline.processAll(source) { features, _ in
                if stop.isRequested { procedure.abort() }
                procedure.frame(GazeFeatures(features.measurement), faceFound: features.face != nil, timeSeconds: features.timestampSeconds)
                if procedure.isDone {
                    inputEnded = false
                    throw Finished()
                }
            }
        } catch is Finished {}
        if inputEnded { procedure.inputEnded() }
        return (procedure, inputEnded)
    }

    /// Throws unless the procedure finished: cancelled (Esc: exit 1; Ctrl-C: exit 130), failed, or cut short.
    func requireFinished(_ procedure: CalibrationProcedure, sourceName: String, inputEnded: Bool) throws {
        switch procedure.phase {
        case .finished:
            return
        case .aborted:
            if stop.isRequested {
                Console.error("\(noun) cancelled (Ctrl-C); nothing was saved.")
                throw ExitCode(130)
            }
            throw CalibrateError.cancelled(noun: noun)
        case .failed(let reason):
            throw CalibrateError.failed(reason: reason)
        default:
            if stop.isRequested { throw CalibrateError.stopped(noun: noun) }
            throw CalibrateError.inputEnded(source: sourceName, atTarget: procedure.currentIndex, noun: noun)
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
