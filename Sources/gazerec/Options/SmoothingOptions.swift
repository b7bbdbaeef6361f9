import ArgumentParser
import GazeCore
import GazeModel
import JSONStream

/// Gaze smoothing filters for --smoothing.
enum SmoothingFilter: String, CaseIterable, ExpressibleByArgument {
    case none
    case oneEuro = "one-euro"
}

/// `--smoothing none|one-euro [--min-cutoff HZ] [--beta B]`, for `start` and `recalibrate`.
struct SmoothingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Smooth the gaze stream: none, or one-euro (the 1€ filter: strong on a still gaze, "
                               + "light on saccades). Recorded with the session.", valueName: "filter"))
    var smoothing: SmoothingFilter?

    @Option(parsing: .unconditional, help: ArgumentHelp("1€ filter: cutoff frequency for a still gaze, Hz (default 1).", valueName: "hz"))
    var minCutoff: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("1€ filter: how fast the cutoff rises with gaze speed, per point/s (default 0.01).",
                               valueName: "beta"))
    var beta: Double?

    func validate() throws {
        if let minCutoff, !(minCutoff > 0 && minCutoff.isFinite) {
            throw ValidationError("--min-cutoff must be a positive number of hertz.")
        }
        if let beta, !(beta >= 0 && beta.isFinite) { throw ValidationError("--beta must be a number ≥ 0.") }
        if (minCutoff != nil || beta != nil) && smoothing != .oneEuro {
            throw ValidationError("--min-cutoff and --beta set the 1€ filter: add --smoothing one-euro.")
        }
    }

    /// The smoothing asked for, or `fallback` when --smoothing is not given.
    func resolved(fallback: GazeSmoothing) -> GazeSmoothing {
        asked ?? fallback
    }

    /// The smoothing asked for; nil when --smoothing is not given.
    var asked: GazeSmoothing? {
        switch smoothing {
        case nil: return nil
        case .none?: return GazeSmoothing.none
        case .oneEuro?: return .oneEuro(minCutoffHertz: minCutoff ?? 1, beta: beta ?? 0.01, derivativeCutoffHertz: 1)
        }
    }
}
