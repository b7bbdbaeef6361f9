#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The physical screen and the viewer's distance from it: how screen points become visual angles.
///
/// One type for calibration accuracy (angles between any two points) and fixation thresholds
/// (points per degree at the centre).
public struct ScreenGeometry: Sendable, Equatable {
    public var widthPoints: Double
    public var heightPoints: Double
    public var widthMillimetres: Double
    public var heightMillimetres: Double
    /// From the eyes to the screen's centre, perpendicular to it.
    public var distanceMillimetres: Double

    public init(widthPoints: Double, heightPoints: Double, widthMillimetres: Double, heightMillimetres: Double,
                distanceMillimetres: Double) {
        self.widthPoints = widthPoints
        self.heightPoints = heightPoints
        self.widthMillimetres = widthMillimetres
        self.heightMillimetres = heightMillimetres
        self.distanceMillimetres = distanceMillimetres
    }

    /// The visual angle between two screen points seen from an eye facing the screen's centre, degrees.
    public func angleDegrees(_ a: Point2, _ b: Point2) -> Double {
        let va = direction(a), vb = direction(b)
        let cross = Vector3(va.y * vb.z - va.z * vb.y, va.z * vb.x - va.x * vb.z, va.x * vb.y - va.y * vb.x)
        let crossLength = (cross.x * cross.x + cross.y * cross.y + cross.z * cross.z).squareRoot()
        return atan2(crossLength, va.x * vb.x + va.y * vb.y + va.z * vb.z) * 180 / Double.pi
    }

    private func direction(_ p: Point2) -> Vector3 {
        Vector3((p.x / widthPoints - 0.5) * widthMillimetres, (p.y / heightPoints - 0.5) * heightMillimetres,
                distanceMillimetres)
    }

    /// Screen points per degree of visual angle at the screen's centre, horizontally: the scale
    /// fixation thresholds in degrees are converted with.
    public var pointsPerDegree: Double {
        widthPoints / widthMillimetres * distanceMillimetres * tan(Double.pi / 180)
    }

    /// Without a geometry: 40 points per degree (a 96 dpi screen seen from about 60 cm).
    public static let assumedPointsPerDegree = 40.0
}
