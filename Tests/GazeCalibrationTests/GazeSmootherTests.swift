import Foundation
import GazeCalibration
import GazeModel
import JSONStream
import Testing
import TestSupport
@testable import GazeCore

@Suite("Gaze smoothing (1€ filter)")
struct GazeSmootherTests {
    @Test("the first value passes; the second follows the paper's formulas (worked by hand)")
    func formulas() {
        var filter = OneEuroFilter(minCutoffHertz: 1, beta: 0.01, derivativeCutoffHertz: 1)
        #expect(filter.filter(0, timeSeconds: 0) == 0)
        // speed 100/s → low-passed at 1 Hz over 0.1 s: 38.587; cutoff 1 + 0.01 × 38.587 = 1.386 Hz;
        // α = 1 / (1 + 1 / (2π · 1.386 · 0.1)) = 0.46546 → 4.6546
        #expect(abs(filter.filter(10, timeSeconds: 0.1) - 4.654600364) < 1e-8)
    }

    @Test("a still gaze with measurement noise is steadied; a constant one is left exactly as it is")
    func steadiesNoise() {
        var generator = SeededGenerator(state: 17)
        var smoother = GazeSmoother(.oneEuro())
        var raw: [Double] = [], smoothed: [Double] = []
        for index in 0..<300 {
            let x = 800 + generator.gaussian(20)
            raw.append(x)
            smoothed.append(smoother.smooth(Point2(x, 400), timeSeconds: Double(index) / 30).x)
        }
        func deviation(_ values: ArraySlice<Double>) -> Double {
            let mean = values.reduce(0, +) / Double(values.count)
            return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)).squareRoot()
        }
        #expect(deviation(smoothed[30...]) < 0.5 * deviation(raw[30...]), "\(deviation(smoothed[30...])) vs \(deviation(raw[30...]))")
        var still = GazeSmoother(.oneEuro())
        for index in 0..<10 { #expect(still.smooth(Point2(5, 7), timeSeconds: Double(index) / 60) == Point2(5, 7)) }
    }

    @Test("a saccade passes with far less lag than a plain low-pass of the same still-gaze cutoff")
    func followsSaccades() {
        func samplesToReach(_ smoothing: GazeSmoothing) -> Int {
            var smoother = GazeSmoother(smoothing)
            for index in 0..<30 { _ = smoother.smooth(Point2(100, 100), timeSeconds: Double(index) / 30) }
            for step in 1...300 {
                let x = smoother.smooth(Point2(1100, 100), timeSeconds: Double(29 + step) / 30).x
                if x >= 1000 { return step }
            }
            return 301
        }
        let adaptive = samplesToReach(.oneEuro())
        let plain = samplesToReach(.oneEuro(minCutoffHertz: 1, beta: 0, derivativeCutoffHertz: 1))
        #expect(adaptive <= 6, "\(adaptive) samples")
        #expect(plain >= 4 * adaptive, "plain low-pass \(plain) samples vs \(adaptive)")
    }

    @Test("a gap longer than 0.25 s (face lost, blink) restarts the filter: no line across the gap")
    func restartsAfterGaps() {
        var smoother = GazeSmoother(.oneEuro())
        for index in 0..<30 { _ = smoother.smooth(Point2(100, 100), timeSeconds: Double(index) / 30) }
        #expect(smoother.smooth(Point2(900, 500), timeSeconds: 1.5) == Point2(900, 500))
        var none = GazeSmoother(.none)
        #expect(none.smooth(Point2(1, 2), timeSeconds: 0) == Point2(1, 2))
        #expect(none.smooth(Point2(9, 9), timeSeconds: 0.01) == Point2(9, 9))
    }
}
