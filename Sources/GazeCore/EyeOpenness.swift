import GazeModel

/// The eye aspect ratio (Soukupová & Čech 2016) of a six-point eye contour.
///
/// EAR = (|p2 − p6| + |p3 − p5|) / (2 |p1 − p4|), with p1…p6 the contour in dlib order
/// (corner, upper lid, upper lid, corner, lower lid, lower lid). About 0.25–0.35 for an open eye,
/// below about 0.15 for a closed one; independent of the face's size.
public func eyeAspectRatio(_ contour: [Point2]) -> Double {
    precondition(contour.count == 6, "an eye contour has six points")
    let width = contour[0].distance(to: contour[3])
    guard width > 0 else { return 0 }
    return (contour[1].distance(to: contour[5]) + contour[2].distance(to: contour[4])) / (2 * width)
}

/// Turns a stream of eye aspect ratios into openness 0…1, adapting to the participant's open-eye level.
///
/// EARs differ between people and head poses, so openness is relative to this eye's own recent
/// open level: the `openPercentile` of the last `window` ratios (80th of ~3 s). Openness is
/// 1 at or above that level and 0 at or below `closedFraction` × that level (0.55: dlib's lids
/// rarely meet, and a shut eye keeps about half its open ratio, more in a small face):
/// `openness = clamp((ear − closed) / (open − closed), 0, 1)`. ARKit's `eyeBlink_X` is `1 − openness`.
public struct OpennessEstimator: Sendable {
    /// How many recent ratios set the open level.
    public let window: Int
    /// Which percentile of the window is the open level.
    public let openPercentile: Double
    /// The closed level as a fraction of the open level.
    public let closedFraction: Double
    /// The open level before any ratio was seen.
    public let initialOpenRatio: Double

    private var recent: RecentLevel

    public init(window: Int = 90, openPercentile: Double = 0.8, closedFraction: Double = 0.55,
                initialOpenRatio: Double = 0.3) {
        precondition(window > 0 && (0...1).contains(openPercentile) && (0..<1).contains(closedFraction))
        self.window = window
        self.openPercentile = openPercentile
        self.closedFraction = closedFraction
        self.initialOpenRatio = initialOpenRatio
        recent = RecentLevel(window: window, percentile: openPercentile)
    }

    /// The current open-eye ratio.
    public var openRatio: Double { recent.level ?? initialOpenRatio }

    /// Adds a ratio and returns the openness for it.
    public mutating func update(ratio: Double) -> Double {
        recent.add(ratio)
        return openness(ratio: ratio)
    }

    /// Openness for `ratio` against the current open level, without adding it.
    public func openness(ratio: Double) -> Double {
        let open = openRatio
        let closed = closedFraction * open
        guard open > closed else { return 1 }
        return Swift.max(0, Swift.min(1, (ratio - closed) / (open - closed)))
    }
}

/// The `percentile` (nearest rank) of the last `window` values added: an eye's own recent open
/// level, which `OpennessEstimator` (aspect ratios) and `EyeSlitContrastLevel` (contrasts) judge by.
struct RecentLevel: Sendable {
    let window: Int
    let percentile: Double
    private var history: [Double] = []
    private var next = 0

    init(window: Int, percentile: Double) {
        self.window = window
        self.percentile = percentile
        history.reserveCapacity(window)
    }

    /// The level, nil before any value.
    var level: Double? {
        guard !history.isEmpty else { return nil }
        let sorted = history.sorted()
        return sorted[Int((Double(sorted.count - 1) * percentile).rounded())]
    }

    /// Adds a value, replacing the oldest once the window is full.
    mutating func add(_ value: Double) {
        if history.count < window {
            history.append(value)
        } else {
            history[next] = value
            next = (next + 1) % window
        }
    }
}
