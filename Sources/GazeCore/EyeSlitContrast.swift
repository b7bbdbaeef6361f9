import GazeModel

/// How plainly an eye shows its iris between its lids in one frame: the contrast along the slit.
///
/// Looking down lowers the upper lid with the gaze, and the eye aspect ratio falls as far as in a
/// blink; but the eye is open, and along the slit between the lids the dark iris still sits between
/// the paler sclera. A shut eye shows lid and lashes there, of one tone. So: `sampleCount` bilinear
/// samples along the line midway between the upper lid (contour points 1, 2) and the lower lid
/// (5, 4), from 12 % to 88 % of the way from one corner to the other; their spread (80th minus 20th
/// percentile, which a glint on glasses covering a few samples cannot move) over the skin's level
/// (the median of 9 samples 0.3 eye widths below the corner line, across the eye's middle 60 %).
/// About 0.4–0.8 for an open eye at webcam sizes, 0.05–0.3 for a shut one; compared with the eye's
/// own open level by `EyeSlitContrastLevel`. 34 bilinear samples and two small sorts per eye.
public enum EyeSlitContrast {
    /// Samples along the slit.
    public static let sampleCount = 25

    /// The contrast of the eye outlined by `contour` (six dlib points), or nil for an eye under
    /// 6 pixels wide or skin too dark to compare with.
    public static func measure(in image: GrayImage, contour: [Point2]) -> Double? {
        precondition(contour.count == 6)
        let a = contour[0], b = contour[3]
        let axis = b - a
        let width = axis.length
        guard width >= 6 else { return nil }
        let along = axis / width, down = Point2(-along.y, along.x)
        func fraction(_ point: Point2) -> Double { (point - a).dot(along) / width }
        let upper = [a, contour[1], contour[2], b], lower = [a, contour[5], contour[4], b]
        var profile = [Double](repeating: 0, count: sampleCount)
        for index in 0..<sampleCount {
            let s = 0.12 + 0.76 * Double(index) / Double(sampleCount - 1)
            let top = interpolate(upper, at: s, fraction), bottom = interpolate(lower, at: s, fraction)
            profile[index] = image.sample((top.x + bottom.x) / 2, (top.y + bottom.y) / 2)
        }
        var skin = [Double](repeating: 0, count: 9)
        for index in 0..<9 {
            let point = a + axis * (0.2 + 0.6 * Double(index) / 8) + down * (0.3 * width)
            skin[index] = image.sample(point.x, point.y)
        }
        skin.sort()
        guard skin[4] >= 8 else { return nil }
        profile.sort()
        return (percentile(profile, 0.8) - percentile(profile, 0.2)) / skin[4]
    }

    /// The point of the polyline (ordered by `fraction`) at fraction `s`, linearly between its vertices.
    @inline(__always)
    static func interpolate(_ polyline: [Point2], at s: Double, _ fraction: (Point2) -> Double) -> Point2 {
        var previous = polyline[0], previousFraction = fraction(previous)
        for point in polyline.dropFirst() {
            let pointFraction = fraction(point)
            if s <= pointFraction {
                let span = pointFraction - previousFraction
                let t = span > 1e-9 ? Swift.max(0, Swift.min(1, (s - previousFraction) / span)) : 0
                return previous + (point - previous) * t
            }
            previous = point
            previousFraction = pointFraction
        }
        return polyline[polyline.count - 1]
    }

    /// Linear interpolation between the sorted values' order statistics.
    @inline(__always)
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        let position = fraction * Double(sorted.count - 1)
        let low = Int(position), high = Swift.min(sorted.count - 1, low + 1)
        return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
    }
}

/// One eye's slit contrast against its own open level: about 1 while the iris shows as usual.
///
/// Contrast differs between people, light and cameras, so it is judged relative to this eye's
/// recent open level, the `openPercentile` of the last `window` contrasts (80th of ~3 s, as for
/// the aspect ratio in `OpennessEstimator`). An eye whose relative contrast is at least
/// `visibleFraction` (0.6) shows its iris: it is open, however low its lids. On the shared clips the
/// open frames' relative contrast has its 1st percentile at 0.62–0.68 and the frames of shut eyes
/// lie at 0.09–0.50 (docs/Architecture.md, Eyes).
public struct EyeSlitContrastLevel: Sendable {
    public let window: Int
    public let openPercentile: Double
    /// The relative contrast at or above which the iris counts as showing.
    public let visibleFraction: Double

    private var recent: RecentLevel

    public init(window: Int = 90, openPercentile: Double = 0.8, visibleFraction: Double = 0.6) {
        precondition(window > 0 && (0...1).contains(openPercentile) && visibleFraction > 0)
        self.window = window
        self.openPercentile = openPercentile
        self.visibleFraction = visibleFraction
        recent = RecentLevel(window: window, percentile: openPercentile)
    }

    /// The current open-eye contrast (nil before any).
    public var openContrast: Double? { recent.level }

    /// Adds a contrast and returns it relative to the open level.
    public mutating func update(contrast: Double) -> Double {
        recent.add(contrast)
        return contrast / Swift.max(openContrast ?? contrast, 1e-6)
    }
}
