#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeCore
import GazeModel

/// Where calibration and validation targets go, as fractions of the screen (0…1 from the top-left).
public enum CalibrationLayout: Int, Sendable, CaseIterable {
    case five = 5
    case nine = 9
    case thirteen = 13

    /// The calibration targets, in the order they are shown (centre first, then around).
    public var calibrationFractions: [Point2] {
        let corners = [Point2(0.1, 0.1), Point2(0.9, 0.1), Point2(0.9, 0.9), Point2(0.1, 0.9)]
        let edges = [Point2(0.5, 0.1), Point2(0.9, 0.5), Point2(0.5, 0.9), Point2(0.1, 0.5)]
        let inner = [Point2(0.3, 0.3), Point2(0.7, 0.3), Point2(0.7, 0.7), Point2(0.3, 0.7)]
        switch self {
        case .five: return [Point2(0.5, 0.5)] + corners
        case .nine: return [Point2(0.5, 0.5)] + corners + edges
        case .thirteen: return [Point2(0.5, 0.5)] + corners + edges + inner
        }
    }

    /// Validation targets: never on a calibration target, spread over the screen.
    public var validationFractions: [Point2] {
        switch self {
        case .five, .nine: return [Point2(0.3, 0.3), Point2(0.7, 0.3), Point2(0.7, 0.7), Point2(0.3, 0.7)]
        case .thirteen: return [Point2(0.5, 0.3), Point2(0.7, 0.5), Point2(0.5, 0.7), Point2(0.3, 0.5)]
        }
    }
}

/// Accuracy and precision at one validation target.
public struct ValidationPointResult: Sendable, Equatable {
    public var target: Point2
    /// Samples with a gaze estimate.
    public var samples: Int
    /// Mean mapped gaze, screen points.
    public var meanGaze: Point2
    /// Mean distance of the gaze samples from the target (Pupil Labs' accuracy), screen points.
    public var accuracyPoints: Double
    /// Root mean square of the distances between successive samples (Pupil Labs' precision), screen points.
    public var precisionPoints: Double
    /// The same two as visual angles, when the screen geometry is known.
    public var accuracyDegrees: Double?
    public var precisionDegrees: Double?

    public init(target: Point2, samples: Int, meanGaze: Point2, accuracyPoints: Double, precisionPoints: Double,
                accuracyDegrees: Double? = nil, precisionDegrees: Double? = nil) {
        self.target = target
        self.samples = samples
        self.meanGaze = meanGaze
        self.accuracyPoints = accuracyPoints
        self.precisionPoints = precisionPoints
        self.accuracyDegrees = accuracyDegrees
        self.precisionDegrees = precisionDegrees
    }
}

/// The validation of a calibration: per target and overall (means over the targets).
public struct ValidationReport: Sendable, Equatable {
    public var points: [ValidationPointResult]
    public var accuracyPoints: Double
    public var precisionPoints: Double
    public var accuracyDegrees: Double?
    public var precisionDegrees: Double?

    public init(points: [ValidationPointResult]) {
        self.points = points
        let measured = points.filter { $0.samples > 0 }
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(values.count, 1)) }
        accuracyPoints = mean(measured.map(\.accuracyPoints))
        precisionPoints = mean(measured.map(\.precisionPoints))
        let degrees = measured.compactMap(\.accuracyDegrees)
        accuracyDegrees = degrees.isEmpty ? nil : mean(degrees)
        let precision = measured.compactMap(\.precisionDegrees)
        precisionDegrees = precision.isEmpty ? nil : mean(precision)
    }

    /// Validates `mapping` on the samples gathered at each validation target. Samples without a
    /// gaze estimate (no pupil, or the eyes shut as `eyeClosure` judges them over the target's
    /// frames: a look at a low target is not a blink) are left out; tracking states other than
    /// normal are kept, as in a recording.
    public static func measure(mapping: GazeMapping, targets: [CalibrationPointSamples],
                               geometry: ScreenGeometry?, eyeClosure: EyeClosureJudge = EyeClosureJudge()) -> ValidationReport {
        ValidationReport(points: targets.map { point in
            let gaze = eyeClosure.judged(point.samples).compactMap { mapping.map($0) }
            return result(target: point.target, gaze: gaze, geometry: geometry)
        })
    }

    /// Accuracy and precision of gaze samples (in time order) against one target.
    public static func result(target: Point2, gaze: [Point2], geometry: ScreenGeometry?) -> ValidationPointResult {
        guard !gaze.isEmpty else {
            return ValidationPointResult(target: target, samples: 0, meanGaze: target, accuracyPoints: .nan,
                                         precisionPoints: .nan, accuracyDegrees: nil, precisionDegrees: nil)
        }
        let accuracy = gaze.reduce(0) { $0 + $1.distance(to: target) } / Double(gaze.count)
        var squares = 0.0, angleSquares = 0.0
        for index in gaze.indices.dropFirst() {
            let step = gaze[index].distance(to: gaze[index - 1])
            squares += step * step
            if let geometry {
                let angle = geometry.angleDegrees(gaze[index], gaze[index - 1])
                angleSquares += angle * angle
            }
        }
        let steps = Double(max(gaze.count - 1, 1))
        var result = ValidationPointResult(target: target, samples: gaze.count, meanGaze: Point2.mean(gaze),
                                           accuracyPoints: accuracy, precisionPoints: (squares / steps).squareRoot())
        if let geometry {
            result.accuracyDegrees = gaze.reduce(0) { $0 + geometry.angleDegrees($1, target) } / Double(gaze.count)
            result.precisionDegrees = (angleSquares / steps).squareRoot()
        }
        return result
    }
}
