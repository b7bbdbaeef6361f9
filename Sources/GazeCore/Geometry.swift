#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

import GazeModel

/// A 3×3 matrix, row-major (`m[row][column]` is `self[row, column]`).
public struct Matrix3: Sendable, Equatable {
    public var elements: [Double]

    public init(_ rows: [[Double]]) {
        precondition(rows.count == 3 && rows.allSatisfy { $0.count == 3 })
        elements = rows.flatMap { $0 }
    }

    public init(elements: [Double]) {
        precondition(elements.count == 9)
        self.elements = elements
    }

    public static let identity = Matrix3([[1, 0, 0], [0, 1, 0], [0, 0, 1]])

    public subscript(row: Int, column: Int) -> Double {
        get { elements[row * 3 + column] }
        set { elements[row * 3 + column] = newValue }
    }

    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        var result = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for column in 0..<3 {
                var sum = 0.0
                for k in 0..<3 { sum += a[row, k] * b[k, column] }
                result[row * 3 + column] = sum
            }
        }
        return Matrix3(elements: result)
    }

    public static func * (m: Matrix3, v: Vector3) -> Vector3 {
        Vector3(m[0, 0] * v.x + m[0, 1] * v.y + m[0, 2] * v.z,
                m[1, 0] * v.x + m[1, 1] * v.y + m[1, 2] * v.z,
                m[2, 0] * v.x + m[2, 1] * v.y + m[2, 2] * v.z)
    }

    public var transposed: Matrix3 {
        Matrix3([[self[0, 0], self[1, 0], self[2, 0]],
                 [self[0, 1], self[1, 1], self[2, 1]],
                 [self[0, 2], self[1, 2], self[2, 2]]])
    }

    /// The rotation for a Rodrigues vector (axis × angle in radians), as OpenCV's `Rodrigues`.
    public static func rotation(rodrigues r: Vector3) -> Matrix3 {
        let theta = r.length
        if theta < 1e-12 {
            // First-order: I + [r]×
            return Matrix3([[1, -r.z, r.y], [r.z, 1, -r.x], [-r.y, r.x, 1]])
        }
        let k = r * (1 / theta)
        let c = cos(theta), s = sin(theta), v = 1 - c
        return Matrix3([
            [k.x * k.x * v + c, k.x * k.y * v - k.z * s, k.x * k.z * v + k.y * s],
            [k.y * k.x * v + k.z * s, k.y * k.y * v + c, k.y * k.z * v - k.x * s],
            [k.z * k.x * v - k.y * s, k.z * k.y * v + k.x * s, k.z * k.z * v + c],
        ])
    }

    /// The Rodrigues vector of a rotation matrix.
    public var rodrigues: Vector3 {
        let trace = self[0, 0] + self[1, 1] + self[2, 2]
        let cosine = Swift.max(-1, Swift.min(1, (trace - 1) / 2))
        let theta = acos(cosine)
        let axis = Vector3(self[2, 1] - self[1, 2], self[0, 2] - self[2, 0], self[1, 0] - self[0, 1])
        if theta < 1e-9 { return axis * 0.5 }
        if Double.pi - theta < 1e-6 {
            // Near 180°: the axis from the diagonal.
            let x = ((self[0, 0] + 1) / 2).squareRoot()
            let y = ((self[1, 1] + 1) / 2).squareRoot() * (self[0, 1] >= 0 ? 1 : -1)
            let z = ((self[2, 2] + 1) / 2).squareRoot() * (self[0, 2] >= 0 ? 1 : -1)
            return Vector3(x, y, z) * theta
        }
        return axis * (theta / (2 * sin(theta)))
    }

    /// The angle in degrees of the rotation taking `self` to `other` (the angle of selfᵀ·other).
    public func angleDegrees(to other: Matrix3) -> Double {
        let relative = transposed * other
        let trace = relative[0, 0] + relative[1, 1] + relative[2, 2]
        return acos(Swift.max(-1, Swift.min(1, (trace - 1) / 2))) * 180 / Double.pi
    }
}

