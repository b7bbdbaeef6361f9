import GazeModel
import Testing
@testable import GazeCore

@Suite("Eye aspect ratio and openness")
struct EyeOpennessTests {
    /// An eye 30 px wide whose lids are `gap` px apart at both lid points.
    func contour(gap: Double) -> [Point2] {
        [Point2(0, 0), Point2(10, -gap / 2), Point2(20, -gap / 2), Point2(30, 0), Point2(20, gap / 2), Point2(10, gap / 2)]
    }

    @Test("EAR is the mean lid gap over the eye width")
    func aspectRatio() {
        #expect(eyeAspectRatio(contour(gap: 9)) == 0.3)
        #expect(eyeAspectRatio(contour(gap: 0)) == 0)
        // Scale-free: the same eye twice as large.
        #expect(eyeAspectRatio(contour(gap: 9).map { $0 * 2 }) == 0.3)
    }

    @Test("openness maps the closed and open levels to 0 and 1, linearly between")
    func opennessMapping() {
        var estimator = OpennessEstimator(window: 5, openPercentile: 1, closedFraction: 0.5, initialOpenRatio: 0.3)
        #expect(estimator.openness(ratio: 0.3) == 1)
        #expect(estimator.openness(ratio: 0.15) == 0)
        #expect(abs(estimator.openness(ratio: 0.225) - 0.5) < 1e-12)
        #expect(estimator.openness(ratio: 0.05) == 0)
        // The open level follows the participant: after wider eyes, 0.3 is no longer fully open.
        for _ in 0..<5 { _ = estimator.update(ratio: 0.4) }
        #expect(estimator.openRatio == 0.4)
        #expect(abs(estimator.openness(ratio: 0.3) - 0.5) < 1e-12)
    }

    @Test("the open level is a percentile of a sliding window")
    func slidingWindow() {
        var estimator = OpennessEstimator(window: 4, openPercentile: 0.5, closedFraction: 0.4)
        for ratio in [0.1, 0.2, 0.3, 0.4] { _ = estimator.update(ratio: ratio) }
        #expect(estimator.openRatio == 0.3)  // sorted [0.1 0.2 0.3 0.4], index round(1.5) = 2
        for ratio in [0.5, 0.6] { _ = estimator.update(ratio: ratio) }  // window now [0.5 0.6 0.3 0.4]
        #expect(estimator.openRatio == 0.5)
    }
}

@Suite("Blink detection")
struct BlinkDetectorTests {
    /// Feeds (left, right) openness at `rate` Hz from t = 0 and collects the events.
    func run(_ samples: [(Double, Double)], rate: Double = 100, detector: BlinkDetector = BlinkDetector()) -> [BlinkEvent] {
        var detector = detector
        var events: [BlinkEvent] = []
        for (index, sample) in samples.enumerated() {
            if let event = detector.update(timeSeconds: Double(index) / rate, leftOpenness: sample.0, rightOpenness: sample.1) {
                events.append(event)
            }
        }
        if let event = detector.finish(timeSeconds: Double(samples.count - 1) / rate) { events.append(event) }
        return events
    }

    func repeated(_ value: (Double, Double), _ count: Int) -> [(Double, Double)] { Array(repeating: value, count: count) }

    @Test("a 150 ms closure of both eyes is one blink with exact start and end")
    func simpleBlink() {
        let samples = repeated((1, 1), 20) + repeated((0.1, 0.1), 15) + repeated((1, 1), 20)
        let events = run(samples)
        #expect(events == [BlinkEvent(startSeconds: 0.20, endSeconds: 0.35, eyes: .both, kind: .blink, minimumOpenness: 0.1)])
    }

    @Test("hysteresis: flicker between the thresholds does not split a blink")
    func hysteresis() {
        // Down to 0.2, up to 0.5 (between close 0.35 and open 0.55), down again, then open.
        let samples = repeated((1, 1), 10) + repeated((0.2, 0.2), 5) + repeated((0.5, 0.5), 3)
            + repeated((0.2, 0.2), 5) + repeated((0.9, 0.9), 10)
        let events = run(samples)
        #expect(events.count == 1)
        #expect(events.first?.startSeconds == 0.10)
        #expect(events.first?.endSeconds == 0.23)
    }

    @Test("closures shorter than 50 ms are noise; longer than 500 ms are long closures")
    func durationLimits() {
        let short = run(repeated((1, 1), 10) + repeated((0, 0), 4) + repeated((1, 1), 10))  // 40 ms
        #expect(short.isEmpty)
        let long = run(repeated((1, 1), 10) + repeated((0, 0), 80) + repeated((1, 1), 10))  // 800 ms
        #expect(long.map(\.kind) == [.longClosure])
        #expect(abs((long.first?.durationSeconds ?? 0) - 0.8) < 1e-9)
    }

    @Test("a wink names the eye that closed (the participant's)")
    func wink() {
        let left = run(repeated((1, 1), 10) + repeated((0.1, 0.9), 20) + repeated((1, 1), 10))
        #expect(left.map(\.eyes) == [.left])
        let right = run(repeated((1, 1), 10) + repeated((0.9, 0.1), 20) + repeated((1, 1), 10))
        #expect(right.map(\.eyes) == [.right])
    }

    @Test("a closure still open at the end of the stream is reported")
    func openAtEnd() {
        let events = run(repeated((1, 1), 10) + repeated((0.1, 0.1), 20))
        #expect(events.count == 1)
        #expect(events.first?.startSeconds == 0.10)
    }

    @Test("a long gap without a face discards a closure in progress")
    func gap() {
        var detector = BlinkDetector()
        _ = detector.update(timeSeconds: 0, leftOpenness: 1, rightOpenness: 1)
        _ = detector.update(timeSeconds: 0.1, leftOpenness: 0, rightOpenness: 0)
        #expect(detector.isClosed)
        detector.missing(timeSeconds: 0.5)
        #expect(!detector.isClosed)
        #expect(detector.update(timeSeconds: 0.6, leftOpenness: 1, rightOpenness: 1) == nil)
    }
}
