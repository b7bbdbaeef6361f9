import GazeModel

/// Finds blinks in per-eye openness with hysteresis and plausible duration limits.
///
/// An eye counts as closed when its openness falls below `closeThreshold` and as open again when
/// it rises above `openThreshold` (hysteresis against flicker). A closure is the span during which
/// at least one eye is closed. Closures shorter than `minimumDuration` are noise and dropped;
/// those up to `maximumBlinkDuration` are blinks (typically 100–400 ms); longer ones are
/// `longClosure`s. A frame without a face ends nothing: the closure continues across the gap,
/// unless the gap exceeds `maximumGap`, which discards it.
public struct BlinkDetector: Sendable {
    public var closeThreshold: Double
    public var openThreshold: Double
    public var minimumDuration: Double
    public var maximumBlinkDuration: Double
    public var maximumGap: Double

    private var closed: [Eye: Bool] = [.left: false, .right: false]
    private var eyesClosedDuringEvent: Set<Eye> = []
    private var startSeconds: Double?
    private var minimumOpenness = 1.0
    private var lastSeconds: Double?

    public init(closeThreshold: Double = 0.35, openThreshold: Double = 0.55, minimumDuration: Double = 0.05,
                maximumBlinkDuration: Double = 0.5, maximumGap: Double = 0.25) {
        precondition(closeThreshold < openThreshold, "the hysteresis needs close < open")
        self.closeThreshold = closeThreshold
        self.openThreshold = openThreshold
        self.minimumDuration = minimumDuration
        self.maximumBlinkDuration = maximumBlinkDuration
        self.maximumGap = maximumGap
    }

    /// Whether either eye is currently closed (the per-frame blink flag).
    public var isClosed: Bool { startSeconds != nil }

    /// Feeds one frame; returns the event that this frame completed, if any.
    public mutating func update(timeSeconds: Double, leftOpenness: Double, rightOpenness: Double) -> BlinkEvent? {
        if let last = lastSeconds, timeSeconds - last > maximumGap, startSeconds != nil {
            reset()
        }
        lastSeconds = timeSeconds
        for (eye, openness) in [(Eye.left, leftOpenness), (Eye.right, rightOpenness)] {
            if closed[eye]! {
                if openness > openThreshold { closed[eye] = false }
            } else if openness < closeThreshold {
                closed[eye] = true
            }
            if closed[eye]! { eyesClosedDuringEvent.insert(eye) }
        }
        let anyClosed = closed[.left]! || closed[.right]!
        if anyClosed {
            if startSeconds == nil { startSeconds = timeSeconds }
            minimumOpenness = Swift.min(minimumOpenness, leftOpenness, rightOpenness)
            return nil
        }
        guard let start = startSeconds else { return nil }
        let event = makeEvent(start: start, end: timeSeconds)
        reset()
        return event
    }

    /// A frame without a face: continues a closure unless the gap grows too long.
    public mutating func missing(timeSeconds: Double) {
        if let last = lastSeconds, timeSeconds - last > maximumGap, startSeconds != nil {
            reset()
            lastSeconds = nil
        }
    }

    /// Ends the stream: a closure still open at the end is reported if long enough.
    public mutating func finish(timeSeconds: Double) -> BlinkEvent? {
        guard let start = startSeconds else { return nil }
        let event = makeEvent(start: start, end: timeSeconds)
        reset()
        return event
    }

    private func makeEvent(start: Double, end: Double) -> BlinkEvent? {
        let duration = end - start
        guard duration >= minimumDuration else { return nil }
        let eyes: BlinkEyes = eyesClosedDuringEvent.count == 2 ? .both : (eyesClosedDuringEvent.contains(.left) ? .left : .right)
        return BlinkEvent(startSeconds: start, endSeconds: end, eyes: eyes,
                          kind: duration <= maximumBlinkDuration ? .blink : .longClosure,
                          minimumOpenness: minimumOpenness)
    }

    private mutating func reset() {
        startSeconds = nil
        eyesClosedDuringEvent = []
        minimumOpenness = 1
        closed = [.left: false, .right: false]
    }
}
