import GazeCalibration
import GazeModel
import GazeVision

/// A calibration or validation run: a source's frames through the vision pipeline into a
/// `CalibrationProcedure`, until it is done, the input ends or a stop is requested. What drives
/// it from outside (keys, a drawing of the targets) comes in through the per-frame hooks.
public struct ProcedureRun {
    public let vision: VisionInput
    public let stop: StopRequest

    public init(vision: VisionInput, stop: StopRequest) {
        self.vision = vision
        self.stop = stop
    }

    /// How a run ended.
    public enum Ending: Sendable, Equatable {
        /// The procedure finished: its outcome (or validation) is there.
        case finished
        /// Aborted by the caller (`beforeFrame` aborted it).
        case cancelled
        /// Aborted because a stop was requested.
        case interrupted
        /// A stop was requested before the procedure finished, without aborting it.
        case stopped
        /// The procedure failed (too few usable targets), for this reason.
        case failed(reason: String)
        /// The input ran out first, at this target (nil: before the first).
        case inputEnded(atTarget: Int?)
    }

    private struct Finished: Error {}

    /// Runs `start` over the frames. `beforeFrame` acts on the procedure before each frame reaches
    /// it (a caller's keys), `afterFrame` sees it after each frame but the last (a caller's drawing).
    /// With `untilFinished` the run also ends once the procedure's phase is finished (a run driven by
    /// keys); a scripted run ends when the procedure is done, and is told when the input ran out first.
    public func run(_ start: CalibrationProcedure, untilFinished: Bool = false,
                    beforeFrame: (inout CalibrationProcedure) -> Void = { _ in },
                    afterFrame: (CalibrationProcedure) -> Void = { _ in }) throws -> (procedure: CalibrationProcedure, ending: Ending) {
        var procedure = start
        var inputEnded = true
        do {
            try vision.pipeline.processAll(vision.frames) { features, _ in
                beforeFrame(&procedure)
                if stop.isRequested { procedure.abort() }
                procedure.frame(GazeFeatures(features.measurement), faceFound: features.face != nil,
                                timeSeconds: features.timestampSeconds)
                if procedure.isDone || (untilFinished && procedure.phase == .finished) {
                    inputEnded = false
                    throw Finished()
                }
                afterFrame(procedure)
            }
        } catch is Finished {}
        if inputEnded && !untilFinished { procedure.inputEnded() }
        return (procedure, ending(procedure))
    }

    /// How the procedure stands, as a run's ending.
    func ending(_ procedure: CalibrationProcedure) -> Ending {
        switch procedure.phase {
        case .finished: return .finished
        case .aborted: return stop.isRequested ? .interrupted : .cancelled
        case .failed(let reason): return .failed(reason: reason)
        default: return stop.isRequested ? .stopped : .inputEnded(atTarget: procedure.currentIndex)
        }
    }
}
