import Foundation
import GazeCalibration
import GazeCore
import GazeModel

/// A reproducible generator (SplitMix64) and Gaussian draws for constructed data.
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func gaussian(_ sigma: Double) -> Double {
        guard sigma > 0 else { return 0 }
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self), u2 = Double.random(in: 0..<1, using: &self)
        return sigma * (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

/// A known "true" mapping from eye and head features to a 1920 × 1080 screen, of the model's form
/// (quadratic in the eyes' position, linear in head angles and position), and samples made from it.
public struct ConstructedParticipant {
    public static let eyeDifference = Point2(0.02, 0.004)

    public static func screen(u: Double, v: Double, yaw: Double, pitch: Double, headX: Double, headY: Double) -> Point2 {
        let du = u - 0.5, dv = v - 0.1
        return Point2(960 + 12000 * du + 9000 * du * du + 3000 * du * dv + 30 * yaw + 2000 * headX,
                      540 + 15000 * dv + 4000 * dv * dv + 1000 * du * dv - 25 * pitch + 1500 * headY)
    }

    /// The eye position (u, v) that puts gaze on `target` for this head pose (Newton's method).
    public static func eye(for target: Point2, yaw: Double, pitch: Double, headX: Double, headY: Double) -> Point2 {
        var u = 0.5, v = 0.1
        for _ in 0..<30 {
            let p = screen(u: u, v: v, yaw: yaw, pitch: pitch, headX: headX, headY: headY)
            let rx = p.x - target.x, ry = p.y - target.y
            let h = 1e-7
            let pu = screen(u: u + h, v: v, yaw: yaw, pitch: pitch, headX: headX, headY: headY)
            let pv = screen(u: u, v: v + h, yaw: yaw, pitch: pitch, headX: headX, headY: headY)
            let a = (pu.x - p.x) / h, b = (pv.x - p.x) / h, c = (pu.y - p.y) / h, d = (pv.y - p.y) / h
            let det = a * d - b * c
            u -= (d * rx - b * ry) / det
            v -= (-c * rx + a * ry) / det
        }
        return Point2(u, v)
    }

    public var generator: SeededGenerator
    /// Standard deviation of each eye's measured (u, v), in corner distances.
    public var pupilNoise = 0.0
    public var time = 1000.0

    public init(generator: SeededGenerator, pupilNoise: Double = 0) {
        self.generator = generator
        self.pupilNoise = pupilNoise
    }

    /// `count` frames looking at `target` with the head moving a little.
    public mutating func samples(at target: Point2, count: Int, onlyLeftEye: Bool = false) -> [GazeFeatures] {
        (0..<count).map { _ in
            let yaw = Double.random(in: -4...4, using: &generator), pitch = Double.random(in: -3...3, using: &generator)
            let headX = Double.random(in: -0.05...0.05, using: &generator), headY = Double.random(in: -0.04...0.04, using: &generator)
            let eye = Self.eye(for: target, yaw: yaw, pitch: pitch, headX: headX, headY: headY)
            let d = Self.eyeDifference / 2
            let left = Point2(eye.x + d.x + generator.gaussian(pupilNoise), eye.y + d.y + generator.gaussian(pupilNoise))
            let right = Point2(eye.x - d.x + generator.gaussian(pupilNoise), eye.y - d.y + generator.gaussian(pupilNoise))
            time += 1.0 / 30
            return GazeFeatures(timestampSeconds: time, pupilLeft: left, pupilRight: onlyLeftEye ? nil : right,
                                yawDegrees: yaw, pitchDegrees: pitch, headX: headX, headY: headY)
        }
    }

    public mutating func points(_ layout: CalibrationLayout, validation: Bool = false, count: Int = 36) -> [CalibrationPointSamples] {
        let fractions = validation ? layout.validationFractions : layout.calibrationFractions
        return fractions.map {
            let target = Point2($0.x * 1920, $0.y * 1080)
            return CalibrationPointSamples(target: target, samples: samples(at: target, count: count))
        }
    }
}

