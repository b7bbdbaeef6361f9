/// One point of the scan path (the EyeTracking format's Gaze).
public struct GazeSample: Sendable, Equatable {
    /// Unix time in seconds.
    public var timestampSeconds: Double
    /// Screen points from the left edge of the screen.
    public var x: Double
    /// Screen points from the top edge of the screen (y grows downwards).
    public var y: Double
    /// UIInterfaceOrientation raw value (0 unknown, 1 portrait, 2 upside down, 3 landscapeRight, 4 landscapeLeft).
    public var orientation: Int
    /// How well the frame it came from was tracked (written in the ARKit spelling in the JSON).
    public var trackingState: TrackingState

    public init(timestampSeconds: Double, x: Double, y: Double, orientation: Int, trackingState: TrackingState = .normal) {
        self.timestampSeconds = timestampSeconds
        self.x = x
        self.y = y
        self.orientation = orientation
        self.trackingState = trackingState
    }

    /// The sample's position in screen points.
    public var point: Point2 { Point2(x, y) }
}

/// One value of one blend-shape series.
public struct BlendShapeSample: Sendable, Equatable {
    /// Unix time in seconds.
    public var timestampSeconds: Double
    /// Coefficient in 0…1.
    public var value: Double
    public var orientation: Int
    public var trackingState: TrackingState

    public init(timestampSeconds: Double, value: Double, orientation: Int, trackingState: TrackingState = .normal) {
        self.timestampSeconds = timestampSeconds
        self.value = value
        self.orientation = orientation
        self.trackingState = trackingState
    }
}

extension GazeSample {
    /// The screen as `samples` saw it, (width, height) in points: a session stores its screen's
    /// portrait size (as the iOS package does), and when most samples are landscape (orientation 3
    /// or 4) they are on that screen turned sideways.
    public static func screen(of samples: [GazeSample], width: Double, height: Double) -> (width: Double, height: Double) {
        let landscape = samples.filter { $0.orientation == 3 || $0.orientation == 4 }.count * 2 > samples.count
        return landscape == (width < height) ? (height, width) : (width, height)
    }
}
