import GazeModel

/// Builds an `AttentionReport` from a session's frames, gaze samples and blink events, each fed in
/// time order (the three streams independently), in one pass and constant memory per interval.
public struct AttentionAccumulator: Sendable {
    private struct Span: Sendable {
        var frames = 0
        var framesWithFace = 0
        var onScreen = 0
        var eyes = EyeStatistics()

        func figures(hasGaze: Bool) -> AttentionFigures {
            let share = { (count: Int) in frames > 0 ? (Double(count) / Double(frames)).rounded(toDecimals: 4) : 0 }
            return AttentionFigures(frames: frames, faceShare: share(framesWithFace),
                                    onScreenShare: hasGaze ? share(onScreen) : nil, eyes: eyes.summary)
        }
    }

    private let markers: MarkerIntervals
    private let screenWidth: Double
    private let screenHeight: Double
    private var session = Span()
    private var intervals: [Span]
    private var hasGaze = false
    private var lastFrameTime: Double?

    /// `markers` in any order; the screen the gaze points are in.
    public init(markers: [Marker], screenWidth: Double, screenHeight: Double) {
        self.markers = MarkerIntervals(markers)
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        intervals = Array(repeating: Span(), count: markers.count)
    }

    public mutating func add(_ frame: FrameMeasurement) {
        let index = markers.index(at: frame.timestampSeconds)
        Self.count(frame, into: &session)
        if let index { Self.count(frame, into: &intervals[index]) }
        lastFrameTime = frame.timestampSeconds
    }

    private static func count(_ frame: FrameMeasurement, into span: inout Span) {
        span.frames += 1
        if frame.hasFace { span.framesWithFace += 1 }
        span.eyes.add(frame)
    }

    public mutating func add(_ sample: GazeSample) {
        hasGaze = true
        guard isOnScreen(x: sample.x, y: sample.y, width: screenWidth, height: screenHeight) else { return }
        session.onScreen += 1
        if let index = markers.index(at: sample.timestampSeconds) { intervals[index].onScreen += 1 }
    }

    /// A blink event counts in the interval where it starts.
    public mutating func add(_ event: BlinkEvent) {
        session.eyes.add(event)
        if let index = markers.index(at: event.startSeconds) { intervals[index].eyes.add(event) }
    }

    /// The figures; nil without frames. `endSeconds` ends the last interval (default: the last frame's time).
    public func report(endSeconds: Double? = nil) -> AttentionReport? {
        guard session.frames > 0 else { return nil }
        let end = endSeconds ?? lastFrameTime ?? 0
        let spans = (0..<markers.count).map { index in
            let span = markers.span(index, endSeconds: end)
            return IntervalAttention(label: markers.markers[index].label, start: span.start, end: span.end,
                                     figures: intervals[index].figures(hasGaze: hasGaze))
        }
        return AttentionReport(session: session.figures(hasGaze: hasGaze), intervals: spans)
    }
}
