#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeModel

/// The 1€ filter (Casiez, Roussel & Vogel, CHI 2012) for one signal: a low-pass filter whose
/// cutoff rises with the signal's speed, so slow jitter is smoothed strongly while fast movements
/// (saccades) pass with little lag.
///
/// cutoff = minCutoff + beta × |speed|, speed itself low-passed at `derivativeCutoff`; each step
/// is an exponential smoothing with α = 1 / (1 + 1 / (2π · cutoff · Δt)).
public struct OneEuroFilter: Sendable, Equatable {
    public var minCutoffHertz: Double
    public var beta: Double
    public var derivativeCutoffHertz: Double

    private var previousValue: Double?
    private var previousDerivative = 0.0
    private var previousTime: Double?

    public init(minCutoffHertz: Double, beta: Double, derivativeCutoffHertz: Double) {
        self.minCutoffHertz = minCutoffHertz
        self.beta = beta
        self.derivativeCutoffHertz = derivativeCutoffHertz
    }

    static func alpha(cutoffHertz: Double, intervalSeconds: Double) -> Double {
        let tau = 1 / (2 * Double.pi * cutoffHertz)
        return 1 / (1 + tau / intervalSeconds)
    }

    /// The filtered value at `timeSeconds`. Times must increase; the first value passes unchanged.
    public mutating func filter(_ value: Double, timeSeconds: Double) -> Double {
        guard let last = previousValue, let lastTime = previousTime, timeSeconds > lastTime else {
            previousValue = value
            previousTime = timeSeconds
            previousDerivative = 0
            return value
        }
        let interval = timeSeconds - lastTime
        let derivative = (value - last) / interval
        let smoothedDerivative = previousDerivative
            + Self.alpha(cutoffHertz: derivativeCutoffHertz, intervalSeconds: interval) * (derivative - previousDerivative)
        let cutoff = minCutoffHertz + beta * abs(smoothedDerivative)
        let smoothed = last + Self.alpha(cutoffHertz: cutoff, intervalSeconds: interval) * (value - last)
        previousValue = smoothed
        previousDerivative = smoothedDerivative
        previousTime = timeSeconds
        return smoothed
    }

    /// Forgets the past: the next value passes unchanged.
    public mutating func reset() {
        previousValue = nil
        previousTime = nil
        previousDerivative = 0
    }
}

/// Smooths a stream of gaze points in time order (one per stream: it keeps the filter state).
public struct GazeSmoother: Sendable {
    public let smoothing: GazeSmoothing
    private var x: OneEuroFilter?
    private var y: OneEuroFilter?
    private var lastTime: Double?

    public init(_ smoothing: GazeSmoothing) {
        self.smoothing = smoothing
        if case let .oneEuro(minCutoff, beta, derivativeCutoff) = smoothing {
            x = OneEuroFilter(minCutoffHertz: minCutoff, beta: beta, derivativeCutoffHertz: derivativeCutoff)
            y = x
        }
    }

    /// The smoothed point for a raw one at `timeSeconds`.
    public mutating func smooth(_ point: Point2, timeSeconds: Double) -> Point2 {
        guard x != nil else { return point }
        if let lastTime, timeSeconds - lastTime > GazeSmoothing.restartGapSeconds {
            x!.reset()
            y!.reset()
        }
        lastTime = timeSeconds
        return Point2(x!.filter(point.x, timeSeconds: timeSeconds), y!.filter(point.y, timeSeconds: timeSeconds))
    }
}
