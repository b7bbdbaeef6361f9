import Foundation
import GazeAnalysis
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
    /// Feeds both eyes' relative aperture at `rate` Hz from t = 0 (openness follows it as the
    /// estimator maps it: 0 at 0.55, 1 at 1) and collects the events.
    func run(_ samples: [(Double, Double)], rate: Double = 100, detector: BlinkDetector = BlinkDetector()) -> [BlinkEvent] {
        var detector = detector
        var events: [BlinkEvent] = []
        func openness(_ aperture: Double) -> Double { max(0, min(1, (aperture - 0.55) / 0.45)) }
        for (index, sample) in samples.enumerated() {
            if let event = detector.update(timeSeconds: Double(index) / rate, leftAperture: sample.0, rightAperture: sample.1,
                                           leftOpenness: openness(sample.0), rightOpenness: openness(sample.1)) {
                events.append(event)
            }
        }
        if let event = detector.finish(timeSeconds: Double(samples.count - 1) / rate) { events.append(event) }
        return events
    }

    func repeated(_ value: (Double, Double), _ count: Int) -> [(Double, Double)] { Array(repeating: value, count: count) }

    @Test("a 150 ms dip of both eyes is one blink with exact start and end")
    func simpleBlink() {
        let samples = repeated((1, 1), 20) + repeated((0.4, 0.4), 15) + repeated((1, 1), 20)
        let events = run(samples)
        #expect(events == [BlinkEvent(startSeconds: 0.20, endSeconds: 0.35, eyes: .both, kind: .blink, minimumOpenness: 0)])
    }

    @Test("a small eye whose lids never meet: a dip to 0.7 of its open aperture is a blink, as deep ones are")
    func shallowBlink() {
        let samples = repeated((1, 1), 20) + repeated((0.85, 0.85), 2) + repeated((0.7, 0.72), 6) + repeated((0.86, 0.86), 2)
            + repeated((1, 1), 20)
        let events = run(samples)
        #expect(events.count == 1)
        #expect(events.first?.kind == .blink && events.first?.eyes == .both)
        #expect(events.first?.startSeconds == 0.22)  // the first frame below 0.8
        #expect(events.first?.endSeconds == 0.30)    // 0.86 ≥ 0.7 + 0.6 × 0.3: recovered
    }

    @Test("wobble of an open eye and a slow narrowing (looking down) are no blinks")
    func noBlink() {
        var wobble: [(Double, Double)] = []
        for index in 0..<300 { let value = 1 + 0.12 * sin(Double(index) * 0.7); wobble.append((value, value)) }
        #expect(run(wobble).isEmpty)
        // Down to 0.85 over a second and back: never below 0.8.
        let narrowing = (0..<200).map { index -> (Double, Double) in
            let value = 1 - 0.15 * sin(Double(index) / 200 * .pi)
            return (value, value)
        }
        #expect(run(narrowing).isEmpty)
    }

    @Test("hysteresis: a partial reopening inside a closure does not split it")
    func hysteresis() {
        // Down to 0.4, up to 0.6 (below 0.4 + 0.6 × 0.6 = 0.76), down again, then open.
        let samples = repeated((1, 1), 10) + repeated((0.4, 0.4), 5) + repeated((0.6, 0.6), 3)
            + repeated((0.4, 0.4), 5) + repeated((1, 1), 10)
        let events = run(samples)
        #expect(events.count == 1)
        #expect(events.first?.startSeconds == 0.10)
        #expect(events.first?.endSeconds == 0.23)
    }

    @Test("a double blink is two events: the eyes come back up by more than half of the drop, then shut again")
    func doubleBlink() {
        // The aperture of a GRID corpus clip (bbaf2n, 25 fps) relative to its open level: a blink
        // down to 0.45, back up to 0.77 for two frames, a second blink down to 0.41, a slow reopening.
        let trace = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.93, 0.61, 0.48, 0.46, 0.59, 0.67, 0.72, 0.77, 0.77, 0.54, 0.48,
                     0.48, 0.43, 0.48, 0.63, 0.61, 0.68, 0.66, 0.67, 0.72, 0.77, 0.81, 0.99, 1, 1, 1, 1, 1, 1]
        let events = run(trace.map { ($0, $0) }, rate: 25)
        #expect(events.map(\.kind) == [.blink, .blink])
        #expect(events.first?.startSeconds == 0.44 && events.first?.endSeconds == 0.68)  // ends as the rebound begins
        #expect(events.last?.startSeconds == 0.72 && events.last?.endSeconds == 1.24)  // 0.81 ≥ 0.43 + 0.6 × 0.57
        // A rebound of a third of the drop (the lids fluttering) splits nothing: see `hysteresis`.
    }

    @Test("jitter is no double blink: one-frame rebounds split nothing, a closure splits once at most, a long closure not at all",
          arguments: [
              // A noisy squint held 2 s at 30 fps, rebounding a frame at a time: one long closure, as before.
              ([Double](repeating: 1, count: 15)
                  + Array([0.62, 0.55, 0.60, 0.78, 0.70, 0.58, 0.55, 0.62, 0.79, 0.65].repeated(6)) + [1, 1, 1, 1, 1],
               30.0, [BlinkEvent.Kind.longClosure]),
              // Lids shut, flickering open for single frames at 15 Hz: one blink.
              ([Double](repeating: 1, count: 15) + [0.3, 0.3] + Array([0.67, 0.3].repeated(6)) + [1, 1, 1, 1, 1], 30.0, [.blink]),
              // One frame back up inside a blink: one blink.
              ([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.5, 0.35, 0.3, 0.45, 0.65, 0.3, 0.75, 1, 1, 1], 25.0, [.blink]),
              // Three dips with held rebounds short of recovery (0.7 < 0.35 + 0.6 × 0.65): the first
              // splits off, the other two stay one closure.
              ([Double](repeating: 1, count: 10) + [0.4, 0.35, 0.4, 0.7, 0.7, 0.7, 0.4, 0.35, 0.4, 0.7, 0.7, 0.7, 0.4, 0.35, 0.4]
                  + [1, 1, 1, 1, 1], 25.0, [.blink, .blink]),
          ])
    func jitterIsNoDoubleBlink(trace: [Double], rate: Double, kinds: [BlinkEvent.Kind]) {
        #expect(run(trace.map { ($0, $0) }, rate: rate).map(\.kind) == kinds)
    }

    @Test("a double blink's first event keeps its frames flagged even when what follows the rebound is dropped")
    func doubleBlinkFlags() {
        func frame(_ index: Int, blinking: Bool) -> FrameFeatures {
            var features = FrameFeatures(frameIndex: index, timestampSeconds: Double(index), trackingState: .normal,
                                         confidence: 1, face: FaceObservation(landmarks: FaceLandmarks(points: Array(
                                             repeating: .zero, count: 68)), confidence: 1, detected: false))
            features.blinking = blinking
            return features
        }
        var resolver = BlinkFlagResolver()
        for index in 0..<4 { #expect(resolver.add(frame(index, blinking: true), completed: nil).isEmpty) }
        // The first blink (frames 0–1) is reported on frame 4, as the eyes fall again after the rebound
        let first = BlinkEvent(startSeconds: 0, endSeconds: 1, eyes: .both, kind: .blink, minimumOpenness: 0)
        let decided = resolver.add(frame(4, blinking: true), completed: first)
        #expect(decided.map(\.frameIndex) == [0, 1] && decided.allSatisfy(\.blinking))
        // The second closure comes to nothing: the frames after the first blink lose their flag
        let rest = resolver.add(frame(5, blinking: false), completed: nil)
        #expect(rest.map(\.frameIndex) == [2, 3, 4, 5] && rest.allSatisfy { !$0.blinking })
    }

    @Test("after a long closure the eye reopening only partly (0.8, looking down) starts no new closure; a real blink then does")
    func partialReopening() {
        let samples = repeated((1, 1), 10) + repeated((0.4, 0.4), 80) + repeated((0.78, 0.78), 30)
            + repeated((0.5, 0.5), 10) + repeated((0.78, 0.78), 20)
        let events = run(samples)
        #expect(events.map(\.kind) == [.longClosure, .blink])
        #expect(events.first?.endSeconds == 0.90)
        #expect(events.last?.startSeconds == 1.20)
    }

    @Test("dips shorter than 50 ms are noise; eyes shut over 0.5 s make a long closure, however slow the lids")
    func durationLimits() {
        let short = run(repeated((1, 1), 10) + repeated((0.3, 0.3), 4) + repeated((1, 1), 10))  // 40 ms
        #expect(short.isEmpty)
        let long = run(repeated((1, 1), 10) + repeated((0.3, 0.3), 80) + repeated((1, 1), 10))  // 800 ms
        #expect(long.map(\.kind) == [.longClosure])
        #expect(abs((long.first?.durationSeconds ?? 0) - 0.8) < 1e-9)
        // 0.55 s from first drop to reopening, but shut (within 35 % of the drop) for 0.3 s: a slow blink.
        let slowLids = repeated((1, 1), 10) + repeated((0.75, 0.75), 12) + repeated((0.4, 0.4), 30)
            + repeated((0.72, 0.72), 13) + repeated((1, 1), 10)
        let slow = run(slowLids)
        #expect(slow.map(\.kind) == [.blink])
        #expect(abs((slow.first?.durationSeconds ?? 0) - 0.55) < 1e-9)
    }

    @Test("a slow shallow narrowing held over a second (wide eyes relaxing, a look down) is no closure; a deep one is")
    func shallowLongIsNoClosure() {
        let relaxing = run(repeated((1, 1), 10) + repeated((0.72, 0.72), 120) + repeated((1, 1), 10))
        #expect(relaxing.isEmpty)
        let shut = run(repeated((1, 1), 10) + repeated((0.5, 0.5), 120) + repeated((1, 1), 10))
        #expect(shut.map(\.kind) == [.longClosure])
    }

    @Test("a hold whose irises show along the slits is a narrowed gaze (no event); the same hold with them hidden is a long closure")
    func narrowedGaze() {
        func run(visible: Bool) -> [BlinkEvent] {
            var detector = BlinkDetector()
            var events: [BlinkEvent] = []
            let apertures = repeated((1, 1), 20) + repeated((0.5, 0.5), 150) + repeated((1, 1), 20)
            for (index, sample) in apertures.enumerated() {
                let held = sample.0 < 1
                if let event = detector.update(timeSeconds: Double(index) / 100, leftAperture: sample.0, rightAperture: sample.1,
                                               leftOpenness: 0, rightOpenness: 0, eyesVisible: held ? visible : true) {
                    events.append(event)
                }
                if held && visible && index > 90 { #expect(!detector.isClosed, "frame \(index)") }
            }
            return events
        }
        #expect(run(visible: true).isEmpty)
        #expect(run(visible: false).map(\.kind) == [.longClosure])
    }

    @Test("a blink while looking down (from the narrowed level 0.6 to 0.25 and back to 0.6) is found")
    func blinkWhileLookingDown() {
        var detector = BlinkDetector()
        var events: [BlinkEvent] = []
        let apertures = repeated((1, 1), 20) + repeated((0.6, 0.6), 100) + repeated((0.25, 0.25), 15) + repeated((0.6, 0.6), 50)
        let hidden = 120..<135
        for (index, sample) in apertures.enumerated() {
            if let event = detector.update(timeSeconds: Double(index) / 100, leftAperture: sample.0, rightAperture: sample.1,
                                           leftOpenness: 0, rightOpenness: 0, eyesVisible: !hidden.contains(index)) {
                events.append(event)
            }
        }
        if let event = detector.finish(timeSeconds: Double(apertures.count - 1) / 100) { events.append(event) }
        #expect(events.map(\.kind) == [.blink])
        #expect(events.first?.startSeconds == 1.20 && events.first?.endSeconds == 1.35)
    }

    @Test("a blink from eyes a little below their open level (0.88) ends when they are back near it (0.82), not at the stream's end")
    func blinkFromLowerLevel() {
        let events = run(repeated((0.88, 0.88), 60) + repeated((0.6, 0.6), 12) + repeated((0.82, 0.82), 100))
        #expect(events.map(\.kind) == [.blink])
        #expect(events.first?.startSeconds == 0.60 && events.first?.endSeconds == 0.72)
    }

    @Test("flags are decided with their closure: frames of a dropped candidate come back unflagged, an event's stay flagged")
    func flagResolver() {
        func frame(_ index: Int, blinking: Bool, face: Bool = true) -> FrameFeatures {
            var features = FrameFeatures(frameIndex: index, timestampSeconds: Double(index), trackingState: face ? .normal : .missing,
                                         confidence: 1, face: face ? FaceObservation(landmarks: FaceLandmarks(points: Array(
                                             repeating: .zero, count: 68)), confidence: 1, detected: false) : nil)
            features.blinking = blinking
            return features
        }
        var resolver = BlinkFlagResolver()
        #expect(resolver.add(frame(0, blinking: false), completed: nil).map(\.blinking) == [false])
        #expect(resolver.add(frame(1, blinking: true), completed: nil).isEmpty)
        #expect(resolver.add(frame(2, blinking: false, face: false), completed: nil).isEmpty)  // a gap inside the closure
        #expect(resolver.add(frame(3, blinking: true), completed: nil).isEmpty)
        // The closure ends with no event: its frames come back unflagged, in order.
        let dropped = resolver.add(frame(4, blinking: false), completed: nil)
        #expect(dropped.map(\.frameIndex) == [1, 2, 3, 4] && dropped.allSatisfy { !$0.blinking })
        #expect(resolver.add(frame(5, blinking: true), completed: nil).isEmpty)
        let event = BlinkEvent(startSeconds: 5, endSeconds: 6, eyes: .both, kind: .blink, minimumOpenness: 0)
        #expect(resolver.add(frame(6, blinking: false), completed: event).map(\.blinking) == [true, false])
        #expect(resolver.add(frame(7, blinking: true), completed: nil).isEmpty)
        #expect(resolver.finish(completed: event).map(\.blinking) == [true])
    }

    @Test("the first second: a blink on the 4th frame of a recording is found, the open level learnt from 3 frames")
    func firstFrames() {
        var left = OpennessEstimator(), right = OpennessEstimator()
        var detector = BlinkDetector()
        var events: [BlinkEvent] = []
        let ratios = [0.28, 0.29, 0.28] + Array(repeating: 0.17, count: 5) + Array(repeating: 0.285, count: 20)
        for (index, ratio) in ratios.enumerated() {
            let opennessLeft = left.update(ratio: ratio), opennessRight = right.update(ratio: ratio * 1.05)
            let apertureLeft = ratio / left.openRatio, apertureRight = ratio * 1.05 / right.openRatio
            if let event = detector.update(timeSeconds: Double(index) / 30, leftAperture: apertureLeft, rightAperture: apertureRight,
                                           leftOpenness: opennessLeft, rightOpenness: opennessRight) {
                events.append(event)
            }
        }
        #expect(events.count == 1)
        #expect(events.first?.kind == .blink && abs((events.first?.startSeconds ?? 0) - 3.0 / 30) < 1e-9)
    }

    @Test("a wink names the eye that closed (the participant's)")
    func wink() {
        let left = run(repeated((1, 1), 10) + repeated((0.3, 0.95), 20) + repeated((1, 1), 10))
        #expect(left.map(\.eyes) == [.left])
        let right = run(repeated((1, 1), 10) + repeated((0.95, 0.3), 20) + repeated((1, 1), 10))
        #expect(right.map(\.eyes) == [.right])
    }

    @Test("a closure still open at the end of the stream is reported")
    func openAtEnd() {
        let events = run(repeated((1, 1), 10) + repeated((0.4, 0.4), 20))
        #expect(events.count == 1)
        #expect(events.first?.startSeconds == 0.10)
    }

    @Test("a long gap without a face discards a closure in progress")
    func gap() {
        var detector = BlinkDetector()
        _ = detector.update(timeSeconds: 0, leftAperture: 1, rightAperture: 1, leftOpenness: 1, rightOpenness: 1)
        _ = detector.update(timeSeconds: 0.1, leftAperture: 0.3, rightAperture: 0.3, leftOpenness: 0, rightOpenness: 0)
        #expect(detector.isClosed)
        detector.missing(timeSeconds: 0.5)
        #expect(!detector.isClosed)
        #expect(detector.update(timeSeconds: 0.6, leftAperture: 1, rightAperture: 1, leftOpenness: 1, rightOpenness: 1) == nil)
    }

    @Test("eye statistics: blinks and long closures apart, the rate over time with a face, PERCLOS over frames with a face")
    func statistics() {
        var statistics = EyeStatistics()
        #expect(statistics.summary == nil)
        // 30 s at 10 Hz with a face, a tenth of the frames shut; then 10 s without a face.
        for index in 0..<300 {
            let shut = index % 10 == 0
            statistics.add(FrameMeasurement(timestampSeconds: Double(index) / 10, trackingState: .normal, confidence: 1,
                                            opennessLeft: shut ? 0.1 : 0.9, opennessRight: shut ? 0.2 : 1))
        }
        for index in 300..<400 {
            statistics.add(FrameMeasurement(timestampSeconds: Double(index) / 10, trackingState: .missing, confidence: 0))
        }
        for kind in [BlinkEvent.Kind.blink, .blink, .blink, .longClosure] {
            statistics.add(BlinkEvent(startSeconds: 1, endSeconds: 1.2, eyes: .both, kind: kind, minimumOpenness: 0))
        }
        let summary = statistics.summary
        #expect(summary?.blinks == 3 && summary?.longClosures == 1 && summary?.framesWithFace == 300)
        #expect(summary?.perclos == 0.1)
        #expect(abs((summary?.blinksPerMinute ?? 0) - 3 / 29.9 * 60) < 0.01)
    }
}

private extension Array {
    /// The elements `count` times over, in order.
    func repeated(_ count: Int) -> [Element] { (0..<count).flatMap { _ in self } }
}
