/// A point in image pixels (x right, y down) or in any 2-D frame the context names.
public struct Point2: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = Point2(0, 0)

    public static func + (a: Point2, b: Point2) -> Point2 { Point2(a.x + b.x, a.y + b.y) }
    public static func - (a: Point2, b: Point2) -> Point2 { Point2(a.x - b.x, a.y - b.y) }
    public static func * (a: Point2, s: Double) -> Point2 { Point2(a.x * s, a.y * s) }
    public static func / (a: Point2, s: Double) -> Point2 { Point2(a.x / s, a.y / s) }

    public var length: Double { (x * x + y * y).squareRoot() }

    public func distance(to other: Point2) -> Double { (self - other).length }

    public func dot(_ other: Point2) -> Double { x * other.x + y * other.y }

    /// The mean of `points`.
    public static func mean<C: Collection>(_ points: C) -> Point2 where C.Element == Point2 {
        var sum = Point2.zero
        for point in points { sum = sum + point }
        return sum / Double(Swift.max(points.count, 1))
    }
}

/// A point or vector in 3-D (camera axes: x right, y down, z away from the camera).
public struct Vector3: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }

    public var length: Double { (x * x + y * y + z * z).squareRoot() }
}

extension Double {
    /// The value rounded half away from zero to `decimals` decimal places, with −0 written as 0:
    /// the precision gazerec records summary figures at (rates, lags, accuracies).
    public func rounded(toDecimals decimals: Int) -> Double {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let result = (self * scale).rounded() / scale
        return result == 0 ? 0 : result
    }
}
