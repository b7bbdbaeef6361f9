import GazeModel

/// The 68 facial landmarks of dlib's (iBUG 300-W) model, in image pixels.
public struct FaceLandmarks: Sendable, Equatable {
    public static let count = 68

    public var points: [Point2]

    public init(points: [Point2]) {
        precondition(points.count == Self.count, "68 landmarks expected, got \(points.count)")
        self.points = points
    }

    /// From interleaved x0, y0, x1, y1, … (136 values).
    public init(interleaved values: [Double]) {
        precondition(values.count == 2 * Self.count)
        points = (0..<Self.count).map { Point2(values[2 * $0], values[2 * $0 + 1]) }
    }

    public subscript(index: Int) -> Point2 { points[index] }

    /// The six contour points of `eye` (see `Eye.landmarkIndices`).
    public func contour(of eye: Eye) -> [Point2] { Array(points[eye.landmarkIndices]) }

    /// The eye's corner on the image's left and on the image's right.
    public func corners(of eye: Eye) -> (imageLeft: Point2, imageRight: Point2) {
        let range = eye.landmarkIndices
        return (points[range.lowerBound], points[range.lowerBound + 3])
    }

    /// The centre of `eye`'s contour.
    public func centre(of eye: Eye) -> Point2 { Point2.mean(contour(of: eye)) }

    /// Distance between the two eyes' centres, in pixels: the face's scale.
    public var interocularDistance: Double { centre(of: .left).distance(to: centre(of: .right)) }

    /// The axis-aligned bounding box of all points.
    public var bounds: (min: Point2, max: Point2) {
        var low = points[0], high = points[0]
        for point in points {
            low = Point2(Swift.min(low.x, point.x), Swift.min(low.y, point.y))
            high = Point2(Swift.max(high.x, point.x), Swift.max(high.y, point.y))
        }
        return (low, high)
    }
}
