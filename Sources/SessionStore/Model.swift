import GazeModel

/// The device a session was recorded on, as the iOS EyeTracking package describes it.
public struct DeviceInfo: Sendable, Equatable {
    /// Camera name (V4L2 card name), the video file name for replays, or the iOS model string.
    public var model: String
    /// Screen width in screen points.
    public var screenWidth: Double
    /// Screen height in screen points.
    public var screenHeight: Double
    /// `Linux` for gazerec recordings, `iOS` for imports from the iOS package.
    public var systemName: String
    /// Distribution and kernel for gazerec recordings.
    public var systemVersion: String

    public init(model: String, screenWidth: Double, screenHeight: Double, systemName: String, systemVersion: String) {
        self.model = model
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.systemName = systemName
        self.systemVersion = systemVersion
    }
}

/// The header of a stored session: everything but its sample series.
public struct SessionHeader: Sendable, Equatable {
    /// Upper-case UUID string.
    public var id: String
    public var appID: String
    /// Unix time in seconds.
    public var beginTimeSeconds: Double
    /// Unix time in seconds; `nil` while the session was never ended.
    public var endTimeSeconds: Double?
    public var deviceInfo: DeviceInfo
    /// The `"gazerec"` extension object, if any (imported iOS sessions have none).
    public var gazerecExtension: SessionExtension?

    public init(
        id: String, appID: String, beginTimeSeconds: Double, endTimeSeconds: Double?,
        deviceInfo: DeviceInfo, gazerecExtension: SessionExtension? = nil
    ) {
        self.id = id
        self.appID = appID
        self.beginTimeSeconds = beginTimeSeconds
        self.endTimeSeconds = endTimeSeconds
        self.deviceInfo = deviceInfo
        self.gazerecExtension = gazerecExtension
    }
}

/// What `list` and `show` report about a session.
public struct SessionSummary: Sendable, Equatable {
    public var header: SessionHeader
    /// Number of scan-path samples.
    public var gazeSampleCount: Int
    /// Blend-shape name → number of samples, sorted by name.
    public var blendShapeSampleCounts: [(name: String, count: Int)]
    /// First and last scan-path timestamps (Unix seconds), if any sample exists.
    public var firstGazeTimestampSeconds: Double?
    public var lastGazeTimestampSeconds: Double?
    /// Whether the recorder died before closing the session.
    public var interrupted: Bool

    /// Seconds between begin and end, or up to the last sample for an unended session.
    public var durationSeconds: Double? {
        if let end = header.endTimeSeconds { return end - header.beginTimeSeconds }
        if let last = lastGazeTimestampSeconds { return last - header.beginTimeSeconds }
        return nil
    }

    /// Samples per second over the scan path's own span.
    public var achievedRateHz: Double? {
        guard let first = firstGazeTimestampSeconds, let last = lastGazeTimestampSeconds,
              gazeSampleCount > 1, last > first else { return nil }
        return Double(gazeSampleCount - 1) / (last - first)
    }

    public static func == (lhs: SessionSummary, rhs: SessionSummary) -> Bool {
        lhs.header == rhs.header && lhs.gazeSampleCount == rhs.gazeSampleCount
            && lhs.blendShapeSampleCounts.elementsEqual(rhs.blendShapeSampleCounts, by: { $0 == $1 })
            && lhs.firstGazeTimestampSeconds == rhs.firstGazeTimestampSeconds
            && lhs.lastGazeTimestampSeconds == rhs.lastGazeTimestampSeconds
            && lhs.interrupted == rhs.interrupted
    }
}
