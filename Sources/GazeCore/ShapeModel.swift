#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeModel

/// A similarity transform of the plane: p ↦ [a −b; b a]·p + t (rotation, uniform scale, translation).
public struct SimilarityTransform: Sendable, Equatable {
    public var a: Double
    public var b: Double
    public var translation: Point2

    public var scale: Double { (a * a + b * b).squareRoot() }

    public func apply(_ p: Point2) -> Point2 {
        Point2(a * p.x - b * p.y + translation.x, b * p.x + a * p.y + translation.y)
    }

    /// The least-squares similarity taking `source` onto `target` (2-D Procrustes).
    public static func fit(from source: [Point2], to target: [Point2]) -> SimilarityTransform {
        precondition(source.count == target.count && !source.isEmpty)
        let sourceMean = Point2.mean(source), targetMean = Point2.mean(target)
        var cosine = 0.0, sine = 0.0, norm = 0.0
        for (s, t) in zip(source, target) {
            let p = s - sourceMean, q = t - targetMean
            cosine += p.x * q.x + p.y * q.y
            sine += p.x * q.y - p.y * q.x
            norm += p.x * p.x + p.y * p.y
        }
        let a = norm > 0 ? cosine / norm : 1, b = norm > 0 ? sine / norm : 0
        let rotated = Point2(a * sourceMean.x - b * sourceMean.y, b * sourceMean.x + a * sourceMean.y)
        return SimilarityTransform(a: a, b: b, translation: targetMean - rotated)
    }
}

/// The landmark model's mean face, in box-relative coordinates ((0, 0) top-left, (1, 1) bottom-right
/// of the face box the model was trained with), used to judge fits and to place the next box.
public struct MeanShape: Sendable {
    public let points: [Point2]

    public init(points: [Point2]) {
        precondition(points.count == FaceLandmarks.count)
        self.points = points
    }

    /// How well `landmarks` look like a face: 1 for the mean shape itself, falling towards 0 as the
    /// RMS residual after the best similarity alignment grows (in units of the face box's side).
    ///
    /// `confidence = exp(−(residual / 0.07)²)`: residuals of real frontal fits are 0.02–0.05
    /// (confidence 0.6–0.9), while fits on something that is no face are above 0.1 (< 0.15).
    public func confidence(of landmarks: FaceLandmarks) -> Double {
        let residual = alignmentResidual(of: landmarks)
        return exp(-(residual / 0.07) * (residual / 0.07))
    }

    /// RMS distance between the landmarks and the aligned mean shape, in face-box units.
    public func alignmentResidual(of landmarks: FaceLandmarks) -> Double {
        let transform = SimilarityTransform.fit(from: points, to: landmarks.points)
        let scale = transform.scale
        guard scale > 0 else { return .infinity }
        var sum = 0.0
        for (mean, observed) in zip(points, landmarks.points) {
            let d = transform.apply(mean) - observed
            sum += d.x * d.x + d.y * d.y
        }
        return (sum / Double(points.count)).squareRoot() / scale
    }

    /// The face box (left, top, right, bottom in pixels) that the model would fit these landmarks
    /// from: the unit box carried by the similarity that best maps the mean shape onto them.
    public func box(for landmarks: FaceLandmarks) -> (left: Double, top: Double, right: Double, bottom: Double) {
        let transform = SimilarityTransform.fit(from: points, to: landmarks.points)
        let centre = transform.apply(Point2(0.5, 0.5))
        let half = transform.scale / 2
        return (centre.x - half, centre.y - half, centre.x + half, centre.y + half)
    }
}
