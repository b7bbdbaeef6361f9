import GazeAnalysis
import GazeModel

/// One gaze sample in stimulus time: where on the stimulus it fell (nil: off the stimulus) and the
/// time it stands for.
public struct ViewedSample: Sendable, Equatable {
    /// Seconds since the stimulus appeared.
    public var seconds: Double
    /// Stimulus pixels (x right, y down from its top-left), nil when the gaze was off the stimulus.
    public var pixel: Point2?
    /// The time this sample stands for: until the next sample, at most the gap that still joins
    /// samples (`StimulusViewing.maximumSampleSeconds`).
    public var durationSeconds: Double
}

/// One fixation in stimulus time, its centre in stimulus pixels (nil: off the stimulus).
public struct ViewedFixation: Sendable, Equatable {
    public var startSeconds: Double
    public var endSeconds: Double
    public var pixel: Point2?
    public var durationSeconds: Double { endSeconds - startSeconds }
}

/// A value at a time in stimulus seconds (a frame's expression probabilities, or its smile).
public struct TimedValue<Value: Sendable & Equatable>: Sendable, Equatable {
    public var seconds: Double
    public var value: Value
}

/// What one session recorded while the stimulus was shown, in stimulus time (seconds since it
/// appeared) and stimulus pixels: the input of every stimulus analysis.
///
/// Only what falls in [0, `durationSeconds`) is kept. Gaze samples of frames without a face
/// (tracking state `missing`) are dropped: they carry no gaze.
public struct StimulusViewing: Sendable {
    /// The longest time one gaze sample stands for (the fixation detector's gap that joins samples).
    public static let maximumSampleSeconds = 0.1

    public let sessionID: String
    /// How long the stimulus was shown in this session (seconds).
    public let durationSeconds: Double
    /// Stimulus pixels per degree of visual angle (the session's screen geometry through the placement).
    public let pixelsPerDegree: Double
    public let samples: [ViewedSample]
    public let fixations: [ViewedFixation]
    /// Blink start times (stimulus seconds).
    public let blinkStarts: [Double]
    public let expressions: [TimedValue<ExpressionProbabilities>]
    public let smile: [TimedValue<Double>]
    /// The recording's data quality over the interval (the study adds the calibration's accuracy,
    /// the scale's source and the rectangle's fit to the screen).
    public var quality: RecordingQuality
    /// The app id the session was recorded with ("" until the study sets it): its default participant group.
    public var appID = ""

    /// Aligns a session's recordings to the stimulus: `startSeconds` (Unix) is stimulus time 0,
    /// `endSeconds` (Unix) its end. Fixations are detected by `detector` on the session's gaze in
    /// screen points (the whole scan path, then those under way inside the interval are kept, trimmed to it).
    public init(sessionID: String, placement: StimulusPlacement, startSeconds: Double, endSeconds: Double,
                gaze: [GazeSample], detector: FixationDetector, blinks: [BlinkEvent], expressions: [ExpressionSample],
                smile: [(timestampSeconds: Double, value: Double)]) {
        self.sessionID = sessionID
        durationSeconds = Swift.max(0, endSeconds - startSeconds)
        pixelsPerDegree = detector.pointsPerDegree * placement.pixelsPerPoint
        let duration = durationSeconds
        func inside(_ time: Double) -> Bool { time >= startSeconds && time - startSeconds < duration }
        let faced = gaze.filter { $0.trackingState != .missing }
        samples = Self.viewedSamples(faced, placement: placement, startSeconds: startSeconds, duration: duration, inside: inside)
        let detected = detector.detect(faced).fixations
        fixations = Self.viewedFixations(detected, placement: placement, startSeconds: startSeconds, duration: duration)
        quality = RecordingQuality.measure(gaze, faced: faced, fixations: detected, startSeconds: startSeconds,
                                           endSeconds: endSeconds, pointsPerDegree: detector.pointsPerDegree)
        blinkStarts = blinks.map(\.startSeconds).filter(inside).map { $0 - startSeconds }.sorted()
        self.expressions = expressions.filter { inside($0.timestampSeconds) }
            .map { TimedValue(seconds: $0.timestampSeconds - startSeconds, value: $0.probabilities) }
            .sorted { $0.seconds < $1.seconds }
        self.smile = smile.filter { inside($0.timestampSeconds) }
            .map { TimedValue(seconds: $0.timestampSeconds - startSeconds, value: $0.value) }
            .sorted { $0.seconds < $1.seconds }
    }

    /// The fixations under way while the stimulus was shown, in stimulus time, trimmed to it: one
    /// already under way at onset starts at 0, one still under way at the end ends there (as Tobii Pro
    /// Lab trims fixations at the edges of an interval); its centre is the whole fixation's.
    private static func viewedFixations(_ found: [Fixation], placement: StimulusPlacement, startSeconds: Double,
                                        duration: Double) -> [ViewedFixation] {
        found.compactMap { fixation in
            let start = Swift.max(0, fixation.startSeconds - startSeconds)
            let end = Swift.min(duration, fixation.endSeconds - startSeconds)
            guard start < duration, fixation.endSeconds - startSeconds > 0 else { return nil }
            return ViewedFixation(startSeconds: start, endSeconds: Swift.max(start, end), pixel: placement.pixel(Point2(fixation.x, fixation.y)))
        }
    }

    /// Each sample stands for the time until the next (at most `maximumSampleSeconds`), and never
    /// past the stimulus's end.
    private static func viewedSamples(_ gaze: [GazeSample], placement: StimulusPlacement, startSeconds: Double,
                                      duration: Double, inside: (Double) -> Bool) -> [ViewedSample] {
        var result: [ViewedSample] = []
        for (index, sample) in gaze.enumerated() where inside(sample.timestampSeconds) {
            let next = index + 1 < gaze.count ? gaze[index + 1].timestampSeconds - sample.timestampSeconds : nil
            let previous = index > 0 ? sample.timestampSeconds - gaze[index - 1].timestampSeconds : nil
            let interval = next ?? previous ?? 0
            let seconds = sample.timestampSeconds - startSeconds
            result.append(ViewedSample(seconds: seconds, pixel: placement.pixel(sample.point),
                                       durationSeconds: Swift.max(0, Swift.min(interval, maximumSampleSeconds, duration - seconds))))
        }
        return result.sorted { $0.seconds < $1.seconds }
    }

    /// Whether the session has any gaze while the stimulus was shown.
    public var hasGaze: Bool { !samples.isEmpty }

    /// The index of the last sample at or before `seconds` that still stands for that time, nil if none.
    public func sampleIndex(at seconds: Double) -> Int? {
        var low = 0, high = samples.count
        while low < high {
            let middle = (low + high) / 2
            if samples[middle].seconds <= seconds { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let sample = samples[low - 1]
        return seconds - sample.seconds <= Swift.max(sample.durationSeconds, 1e-9) ? low - 1 : nil
    }
}

/// Small statistics the stimulus analyses share.
enum Statistics {
    /// The `fraction` quantile by linear interpolation between order statistics; nil when empty.
    static func quantile(_ sortedValues: [Double], _ fraction: Double) -> Double? {
        guard !sortedValues.isEmpty else { return nil }
        let position = fraction * Double(sortedValues.count - 1)
        let low = Int(position.rounded(.down)), high = Swift.min(low + 1, sortedValues.count - 1)
        return sortedValues[low] + (sortedValues[high] - sortedValues[low]) * (position - Double(low))
    }

    /// The median point (coordinate-wise) and the median distance of the points from it; nil when empty.
    static func centre(_ points: [Point2]) -> (point: Point2, dispersion: Double)? {
        guard let x = median(ofPresent: points.map(\.x)), let y = median(ofPresent: points.map(\.y)) else { return nil }
        let centre = Point2(x, y)
        return (centre, median(points.map { $0.distance(to: centre) }))
    }

    /// The element-wise mean of probability vectors; nil when empty.
    static func mean(_ probabilities: [ExpressionProbabilities]) -> ExpressionProbabilities? {
        guard let first = probabilities.first else { return nil }
        var sums = [Double](repeating: 0, count: first.values.count)
        for p in probabilities { for index in sums.indices { sums[index] += p.values[index] } }
        return ExpressionProbabilities(values: sums.map { $0 / Double(probabilities.count) })
    }
}
