/// Attention and drowsiness figures of a session and of each marker's interval: how much of the
/// time the face was there and the gaze on the screen (the SeeSo SDK's attention), blinks and
/// PERCLOS. Computed from the stored frames, scan path, blink events and markers whenever a
/// session is shown or exported, so they follow a recalibration or a marker added later.

/// A recording's blink figures as its frames and blink events come: blinks, long closures, the
/// blink rate over the time with a face, and PERCLOS. The recorder stores them with the session
/// and `analyze` prints them, from the same frames and events.
public struct EyeStatistics: Sendable {
    /// Mean openness of both eyes at or below which a frame counts as closed for PERCLOS (P80).
    public static let perclosOpenness = 0.2
    /// Frame intervals longer than this (the face lost, a stall) do not count as time with a face.
    public static let maximumInterval = 0.25

    public private(set) var blinks = 0
    public private(set) var longClosures = 0
    public private(set) var framesWithFace = 0
    public private(set) var closedFrames = 0
    public private(set) var faceSeconds = 0.0
    private var lastFaceTime: Double?

    public init() {}

    public mutating func add(_ frame: FrameMeasurement) {
        guard frame.hasFace else {
            lastFaceTime = nil
            return
        }
        framesWithFace += 1
        if let last = lastFaceTime, frame.timestampSeconds - last <= Self.maximumInterval {
            faceSeconds += frame.timestampSeconds - last
        }
        lastFaceTime = frame.timestampSeconds
        if let left = frame.opennessLeft, let right = frame.opennessRight, (left + right) / 2 <= Self.perclosOpenness {
            closedFrames += 1
        }
    }

    public mutating func add(_ event: BlinkEvent) {
        switch event.kind {
        case .blink: blinks += 1
        case .longClosure: longClosures += 1
        }
    }

    /// The figures so far; nil before any frame with a face.
    public var summary: EyeSummary? {
        guard framesWithFace > 0 else { return nil }
        return EyeSummary(blinks: blinks, longClosures: longClosures,
                          blinksPerMinute: faceSeconds > 0 ? (Double(blinks) / faceSeconds * 60).rounded(toDecimals: 2) : 0,
                          perclos: (Double(closedFrames) / Double(framesWithFace)).rounded(toDecimals: 4),
                          framesWithFace: framesWithFace)
    }
}

/// Whether a gaze point lies on a screen of `width` × `height` points (edges included).
public func isOnScreen(x: Double, y: Double, width: Double, height: Double) -> Bool {
    x >= 0 && y >= 0 && x <= width && y <= height
}

/// The attention figures of one span of a session (the whole session, or a marker's interval).
public struct AttentionFigures: Sendable, Equatable {
    /// Frames in the span.
    public var frames: Int
    /// Share 0…1 of the frames with a face.
    public var faceShare: Double
    /// Share 0…1 of the frames whose gaze lies on the screen (frames without a face or a gaze
    /// point count as off it); nil when the session has no gaze (no calibration).
    public var onScreenShare: Double?
    /// Blinks, long closures, blink rate and PERCLOS over the span's frames with a face (nil without one).
    public var eyes: EyeSummary?

    public init(frames: Int, faceShare: Double, onScreenShare: Double?, eyes: EyeSummary?) {
        self.frames = frames
        self.faceShare = faceShare
        self.onScreenShare = onScreenShare
        self.eyes = eyes
    }
}

/// A marker's interval: from its time until the next marker's (the last until the session's end).
public struct IntervalAttention: Sendable, Equatable {
    public var label: String
    /// Unix seconds.
    public var start: Double
    public var end: Double
    public var figures: AttentionFigures

    public init(label: String, start: Double, end: Double, figures: AttentionFigures) {
        self.label = label
        self.start = start
        self.end = end
        self.figures = figures
    }
}

/// `"gazerec"."attention"`: the session's figures and each marker interval's.
public struct AttentionReport: Sendable, Equatable {
    public var session: AttentionFigures
    public var intervals: [IntervalAttention]

    public init(session: AttentionFigures, intervals: [IntervalAttention]) {
        self.session = session
        self.intervals = intervals
    }
}

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

    private let markers: [Marker]
    private let starts: [Double]
    private let screenWidth: Double
    private let screenHeight: Double
    private var session = Span()
    private var intervals: [Span]
    private var hasGaze = false
    private var lastFrameTime: Double?

    /// `markers` in any order; the screen the gaze points are in.
    public init(markers: [Marker], screenWidth: Double, screenHeight: Double) {
        self.markers = markers.enumerated()
            .sorted { ($0.element.timestampSeconds, $0.offset) < ($1.element.timestampSeconds, $1.offset) }
            .map(\.element)
        starts = self.markers.map(\.timestampSeconds)
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        intervals = Array(repeating: Span(), count: markers.count)
    }

    /// The interval holding `time`: the last marker at or before it (nil before the first).
    private func interval(at time: Double) -> Int? {
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= time { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }

    public mutating func add(_ frame: FrameMeasurement) {
        let index = interval(at: frame.timestampSeconds)
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
        if let index = interval(at: sample.timestampSeconds) { intervals[index].onScreen += 1 }
    }

    /// A blink event counts in the interval where it starts.
    public mutating func add(_ event: BlinkEvent) {
        session.eyes.add(event)
        if let index = interval(at: event.startSeconds) { intervals[index].eyes.add(event) }
    }

    /// The figures; nil without frames. `endSeconds` ends the last interval (default: the last frame's time).
    public func report(endSeconds: Double? = nil) -> AttentionReport? {
        guard session.frames > 0 else { return nil }
        let end = endSeconds ?? lastFrameTime ?? 0
        let spans = markers.indices.map { index in
            IntervalAttention(label: markers[index].label, start: starts[index],
                              end: index + 1 < starts.count ? starts[index + 1] : max(end, starts[index]),
                              figures: intervals[index].figures(hasGaze: hasGaze))
        }
        return AttentionReport(session: session.figures(hasGaze: hasGaze), intervals: spans)
    }
}
