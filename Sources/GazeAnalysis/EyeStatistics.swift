import GazeModel

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
