import GazeCapture
import GazeCore

/// Seating a participant before calibrating: frames through the pipeline, one `SeatingReport`
/// per second, until the seating has stayed in range for `holdSeconds` (held), the stream's
/// time reaches `durationSeconds`, the source ends, or the caller stops it.
///
/// Runs the same `FramePipeline` as a recording, so it costs no more per frame; times are the
/// stream's own (a file's presentation times, a camera's capture times).
public struct PositionGuide: Sendable {
    public var thresholds: SeatingThresholds
    /// How long every report must stay ok, seconds (0: the first ok second is enough).
    public var holdSeconds: Double
    /// The longest the guide runs, seconds of the stream; nil: until held or stopped.
    public var durationSeconds: Double?

    public init(thresholds: SeatingThresholds = SeatingThresholds(), holdSeconds: Double = 2, durationSeconds: Double? = nil) {
        self.thresholds = thresholds
        self.holdSeconds = holdSeconds
        self.durationSeconds = durationSeconds
    }

    /// How a guided run ended.
    public struct Outcome: Sendable {
        /// Whether the seating stayed in range for the hold.
        public var held: Bool
        /// The last report (nil when not a second of frames came).
        public var lastReport: SeatingReport?
        /// Seconds of stream the guide saw.
        public var elapsedSeconds: Double
    }

    private struct Done: Error {}

    /// Runs the guide over `source`; `frame` sees every frame's features (a live view), `report`
    /// each second's report; `shouldStop` is asked after every frame.
    public func run(_ source: FrameSource, pipeline: FramePipeline, shouldStop: () -> Bool,
                    frame: (FrameFeatures) -> Void = { _ in }, report: (SeatingReport) -> Void) throws -> Outcome {
        var check = SeatingCheck(frameWidth: source.width, frameHeight: source.height, thresholds: thresholds)
        var hold = HoldTally(holdSeconds: holdSeconds)
        var start: Double?
        var elapsed = 0.0
        var last: SeatingReport?
        func take(_ closed: SeatingReport) throws {
            var next = closed
            next.explainNoFace(pipeline.noFaceProbe.finding)
            last = next
            report(next)
            if hold.add(next) { throw Done() }
        }
        do {
            try pipeline.processAll(source) { features, _ in
                let begin = start ?? features.timestampSeconds
                start = begin
                elapsed = features.timestampSeconds - begin
                frame(features)
                if let closed = check.add(features) { try take(closed) }
                if let durationSeconds, elapsed >= durationSeconds { throw Done() }
                if shouldStop() { throw Done() }
            }
            if let closed = check.finish() { try take(closed) }
        } catch is Done {}
        return Outcome(held: hold.held, lastReport: last, elapsedSeconds: elapsed)
    }
}

/// How long the reports have stayed ok in a row.
struct HoldTally {
    let holdSeconds: Double
    private(set) var okSeconds = 0.0
    private(set) var held = false

    init(holdSeconds: Double) {
        self.holdSeconds = holdSeconds
    }

    /// Adds a report; returns whether the hold is now reached.
    mutating func add(_ report: SeatingReport) -> Bool {
        okSeconds = report.ok ? okSeconds + report.spanSeconds : 0
        if report.ok && okSeconds >= holdSeconds - 1e-9 { held = true }
        return held
    }
}
