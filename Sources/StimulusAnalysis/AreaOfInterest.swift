import GazeModel
import JSONStream

/// The outline of an area of interest in stimulus pixels.
public enum AOIShape: Sendable, Equatable {
    /// Left, top, width, height.
    case rect(x: Double, y: Double, width: Double, height: Double)
    /// Centre and radii.
    case ellipse(centreX: Double, centreY: Double, radiusX: Double, radiusY: Double)
    /// Vertices in order (even-odd rule).
    case polygon([Point2])

    /// Whether `point` lies inside (edges included for rectangles and ellipses).
    public func contains(_ point: Point2) -> Bool {
        switch self {
        case let .rect(x, y, width, height):
            return point.x >= x && point.x <= x + width && point.y >= y && point.y <= y + height
        case let .ellipse(cx, cy, rx, ry):
            let dx = (point.x - cx) / rx, dy = (point.y - cy) / ry
            return dx * dx + dy * dy <= 1
        case let .polygon(vertices):
            var inside = false
            var previous = vertices[vertices.count - 1]
            for vertex in vertices {
                if (vertex.y > point.y) != (previous.y > point.y),
                   point.x < (previous.x - vertex.x) * (point.y - vertex.y) / (previous.y - vertex.y) + vertex.x {
                    inside.toggle()
                }
                previous = vertex
            }
            return inside
        }
    }

    /// The bounding box (left, top, right, bottom).
    public var bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        switch self {
        case let .rect(x, y, width, height): (x, y, x + width, y + height)
        case let .ellipse(cx, cy, rx, ry): (cx - rx, cy - ry, cx + rx, cy + ry)
        case let .polygon(vertices):
            (vertices.map(\.x).min()!, vertices.map(\.y).min()!, vertices.map(\.x).max()!, vertices.map(\.y).max()!)
        }
    }

    /// The shape a `fraction` (0…1) of the way to `other`, every number moved linearly; nil when
    /// the two are not of one kind (or polygons of different vertex counts).
    func interpolated(to other: AOIShape, fraction f: Double) -> AOIShape? {
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * f }
        switch (self, other) {
        case let (.rect(x0, y0, w0, h0), .rect(x1, y1, w1, h1)):
            return .rect(x: mix(x0, x1), y: mix(y0, y1), width: mix(w0, w1), height: mix(h0, h1))
        case let (.ellipse(x0, y0, a0, b0), .ellipse(x1, y1, a1, b1)):
            return .ellipse(centreX: mix(x0, x1), centreY: mix(y0, y1), radiusX: mix(a0, a1), radiusY: mix(b0, b1))
        case let (.polygon(p0), .polygon(p1)) where p0.count == p1.count:
            return .polygon(zip(p0, p1).map { Point2(mix($0.x, $1.x), mix($0.y, $1.y)) })
        default:
            return nil
        }
    }
}

/// A named area of interest on a stimulus: static (one shape for the whole stimulus) or keyframed
/// (moving linearly between keyframes, existing only from its first keyframe to its last).
public struct AreaOfInterest: Sendable, Equatable {
    public struct Keyframe: Sendable, Equatable {
        /// Stimulus seconds.
        public var seconds: Double
        public var shape: AOIShape
    }

    public let name: String
    /// One keyframe without a time for a static area, else keyframes in increasing time.
    public let keyframes: [Keyframe]
    public let isStatic: Bool

    public init(name: String, shape: AOIShape) {
        self.name = name
        keyframes = [Keyframe(seconds: 0, shape: shape)]
        isStatic = true
    }

    /// Refuses keyframes out of time order, fewer than one, or of different kinds of shape.
    public init(name: String, keyframes: [Keyframe]) throws {
        guard !keyframes.isEmpty else { throw StimulusError.badAOIs(source: name, reason: "it has no keyframes") }
        for (a, b) in zip(keyframes, keyframes.dropFirst()) {
            guard b.seconds > a.seconds else {
                throw StimulusError.badAOIs(source: name, reason: "its keyframes are out of time order (\(b.seconds) s after \(a.seconds) s)")
            }
            guard a.shape.interpolated(to: b.shape, fraction: 0) != nil else {
                throw StimulusError.badAOIs(source: name, reason: "its keyframes at \(a.seconds) s and \(b.seconds) s are different kinds of shape")
            }
        }
        self.name = name
        self.keyframes = keyframes
        isStatic = false
    }

    /// When the area exists within a stimulus shown for `durationSeconds` (nil: never).
    public func existence(durationSeconds: Double) -> ClosedRange<Double>? {
        if isStatic { return durationSeconds > 0 ? 0...durationSeconds : nil }
        let start = Swift.max(0, keyframes.first!.seconds), end = Swift.min(durationSeconds, keyframes.last!.seconds)
        return start <= end ? start...end : nil
    }

    /// The shape at `seconds`, nil outside the keyframes' span.
    public func shape(at seconds: Double) -> AOIShape? {
        if isStatic { return keyframes[0].shape }
        guard seconds >= keyframes.first!.seconds, seconds <= keyframes.last!.seconds else { return nil }
        guard let next = keyframes.firstIndex(where: { $0.seconds >= seconds }) else { return nil }
        if next == 0 || keyframes[next].seconds == seconds { return keyframes[next].shape }
        let a = keyframes[next - 1], b = keyframes[next]
        return a.shape.interpolated(to: b.shape, fraction: (seconds - a.seconds) / (b.seconds - a.seconds))
    }

    /// Whether `pixel` is inside the area at `seconds`.
    public func contains(_ pixel: Point2, at seconds: Double) -> Bool { shape(at: seconds)?.contains(pixel) ?? false }
}
