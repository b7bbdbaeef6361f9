import Foundation
import Testing
@testable import GazeCore

/// A reproducible generator (SplitMix64) and Gaussian draws for constructed data.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func gaussian(_ sigma: Double) -> Double {
        guard sigma > 0 else { return 0 }
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self), u2 = Double.random(in: 0..<1, using: &self)
        return sigma * (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

/// A known "true" mapping from eye and head features to a 1920 × 1080 screen, of the model's form
/// (quadratic in the eyes' position, linear in head angles and position), and samples made from it.
struct ConstructedParticipant {
    static let eyeDifference = Point2(0.02, 0.004)

    static func screen(u: Double, v: Double, yaw: Double, pitch: Double, headX: Double, headY: Double) -> Point2 {
        let du = u - 0.5, dv = v - 0.1
        return Point2(960 + 12000 * du + 9000 * du * du + 3000 * du * dv + 30 * yaw + 2000 * headX,
                      540 + 15000 * dv + 4000 * dv * dv + 1000 * du * dv - 25 * pitch + 1500 * headY)
    }

    /// The eye position (u, v) that puts gaze on `target` for this head pose (Newton's method).
    static func eye(for target: Point2, yaw: Double, pitch: Double, headX: Double, headY: Double) -> Point2 {
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

    var generator: SeededGenerator
    /// Standard deviation of each eye's measured (u, v), in corner distances.
    var pupilNoise = 0.0
    var time = 1000.0

    /// `count` frames looking at `target` with the head moving a little.
    mutating func samples(at target: Point2, count: Int, onlyLeftEye: Bool = false) -> [GazeFeatures] {
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

    mutating func points(_ layout: CalibrationLayout, validation: Bool = false, count: Int = 36) -> [CalibrationPointSamples] {
        let fractions = validation ? layout.validationFractions : layout.calibrationFractions
        return fractions.map {
            let target = Point2($0.x * 1920, $0.y * 1080)
            return CalibrationPointSamples(target: target, samples: samples(at: target, count: count))
        }
    }
}

@Suite("Calibration fit")
struct CalibrationFitTests {
    @Test("Noiseless data from a known mapping is recovered within 1 screen point, 9 and 13 targets", arguments: [
        CalibrationLayout.nine, .thirteen,
    ])
    func recoversKnownMapping(layout: CalibrationLayout) throws {
        // Given samples from the constructed participant, exact (no measurement noise)
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 7))
        let calibration = participant.points(layout)
        // When fitted and checked on targets that were not part of the fit
        let fit = try CalibrationFitter().fit(calibration)
        let report = ValidationReport.measure(mapping: fit.mapping, targets: participant.points(layout, validation: true),
                                              geometry: nil)
        // Then every sample maps within a point of its target, and nothing was dropped as an outlier
        #expect(fit.trainingErrorPoints <= 1)
        #expect(report.accuracyPoints <= 1, "validation accuracy \(report.accuracyPoints) pt")
        #expect(report.points.allSatisfy { $0.accuracyPoints <= 1 })
        #expect(fit.points.allSatisfy { $0.used == $0.collected })
        #expect(fit.crossValidationErrorPoints <= 1)
        #expect(fit.mapping.ridgePenalty == CalibrationFitter().penalties.min())
    }

    @Test("Pupil noise degrades the accuracy gracefully: in proportion to the noise")
    func degradesWithNoise() throws {
        var accuracies: [Double] = []
        for noise in [0.0, 0.001, 0.002, 0.004] {
            var participant = ConstructedParticipant(generator: SeededGenerator(state: 11), pupilNoise: noise)
            let fit = try CalibrationFitter().fit(participant.points(.nine))
            let report = ValidationReport.measure(mapping: fit.mapping, targets: participant.points(.nine, validation: true),
                                                  geometry: nil)
            accuracies.append(report.accuracyPoints)
            // Each sample's error is about the noise carried through the mapping (≈ 12000–15000 pt per
            // unit, averaged over two eyes): the fit itself adds little on top.
            let perSample = noise * 15000 / 2.0.squareRoot()
            #expect(report.accuracyPoints <= 1 + 2 * perSample, "noise \(noise): accuracy \(report.accuracyPoints) pt")
        }
        #expect(accuracies == accuracies.sorted(), "accuracy should worsen as noise grows: \(accuracies)")
        #expect(accuracies.last! > 5 * accuracies.first!)
    }

    @Test("Glances away from a target are dropped as outliers and do not bend the fit")
    func rejectsOutliersPerPoint() throws {
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 3))
        var calibration = participant.points(.nine)
        // Given a fifth of one target's samples looking 300 points to the side
        let away = participant.samples(at: calibration[2].target + Point2(300, 0), count: 9)
        calibration[2].samples.replaceSubrange(0..<9, with: away)
        // When fitted
        let fit = try CalibrationFitter().fit(calibration)
        // Then those samples are dropped and the mapping stays exact
        #expect(fit.points[2].used == 36 - 9)
        let report = ValidationReport.measure(mapping: fit.mapping, targets: participant.points(.nine, validation: true),
                                              geometry: nil)
        #expect(report.accuracyPoints <= 1)
    }

    @Test("Too few usable samples at a target: refused, naming the target")
    func refusesTooFewSamples() {
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 5))
        var calibration = participant.points(.five)
        // Given target 4 with only 5 of 36 frames having a pupil (the rest: eyes shut or face not normal)
        for index in 5..<36 {
            if index % 2 == 0 {
                calibration[3].samples[index].pupilLeft = nil
                calibration[3].samples[index].pupilRight = nil
            } else {
                calibration[3].samples[index].trackingNormal = false
            }
        }
        #expect(throws: CalibrationError.tooFewSamples(point: 3, target: calibration[3].target, usable: 5, collected: 36,
                                                       needed: 8)) {
            try CalibrationFitter().fit(calibration)
        }
        #expect(throws: CalibrationError.tooFewPoints(have: 4, needed: 5)) {
            try CalibrationFitter().fit(Array(calibration.prefix(4)))
        }
    }

    @Test("Eyes that never move between targets cannot be mapped")
    func refusesDegenerateData() {
        let still = GazeFeatures(timestampSeconds: 0, pupilLeft: Point2(0.5, 0.1), pupilRight: Point2(0.5, 0.1),
                                 yawDegrees: 0, pitchDegrees: 0, headX: 0, headY: 0)
        let points = CalibrationLayout.five.calibrationFractions.map {
            CalibrationPointSamples(target: Point2($0.x * 1920, $0.y * 1080), samples: Array(repeating: still, count: 20))
        }
        #expect(throws: CalibrationError.degenerate) { try CalibrationFitter().fit(points) }
    }

    @Test("One eye missing: the other, shifted by the calibration's eye difference, maps as well")
    func mapsWithOneEye() throws {
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 9))
        let fit = try CalibrationFitter().fit(participant.points(.nine))
        #expect(abs(fit.mapping.eyeDifference.x - ConstructedParticipant.eyeDifference.x) < 1e-9)
        let target = Point2(700, 300)
        for sample in participant.samples(at: target, count: 10, onlyLeftEye: true) {
            #expect(fit.mapping.map(sample)!.distance(to: target) <= 1)
        }
        var blind = participant.samples(at: target, count: 1)[0]
        blind.pupilLeft = nil
        blind.pupilRight = nil
        #expect(fit.mapping.map(blind) == nil)
    }
}

@Suite("Calibration validation")
struct CalibrationValidationTests {
    let geometry = ScreenGeometry(widthPoints: 1920, heightPoints: 1080, widthMillimetres: 527, heightMillimetres: 296,
                                  distanceMillimetres: 600)

    @Test("Accuracy is the mean offset, precision the RMS of sample-to-sample steps, in points and degrees")
    func accuracyAndPrecision() {
        // Given gaze 10 points right of the centre target, alternating ±3 points vertically
        let target = Point2(960, 540)
        let gaze = (0..<10).map { Point2(970, 540 + ($0 % 2 == 0 ? 3 : -3)) }
        let result = ValidationReport.result(target: target, gaze: gaze, geometry: geometry)
        // Then accuracy = mean distance, precision = RMS of the 6-point steps
        #expect(abs(result.accuracyPoints - (100.0 + 9).squareRoot()) < 1e-12)
        #expect(abs(result.precisionPoints - 6) < 1e-12)
        // And in degrees, seen from 600 mm in front of the centre
        let millimetresPerPoint = 527.0 / 1920
        let expected = atan((100.0 + 9).squareRoot() * millimetresPerPoint / 600) * 180 / Double.pi
        #expect(abs(result.accuracyDegrees! - expected) < 1e-4)
        #expect(abs(result.precisionDegrees! - atan(6 * (296.0 / 1080) / 600) * 180 / Double.pi) < 1e-3)
    }

    @Test("Overall figures are means over the targets that had samples")
    func overall() {
        let a = ValidationReport.result(target: Point2(0, 0), gaze: [Point2(3, 4)], geometry: nil)
        let b = ValidationReport.result(target: Point2(0, 0), gaze: [Point2(6, 8)], geometry: nil)
        let empty = ValidationReport.result(target: Point2(0, 0), gaze: [], geometry: nil)
        let report = ValidationReport(points: [a, b, empty])
        #expect(report.accuracyPoints == 7.5)
        #expect(report.accuracyDegrees == nil)
        #expect(empty.samples == 0)
    }

    @Test("Angles off the screen's centre follow the geometry, not a constant points-per-degree")
    func angleOffCentre() {
        // Two points 100 pt apart at the screen's edge subtend less than at its centre.
        let centre = geometry.angleDegrees(Point2(910, 540), Point2(1010, 540))
        let edge = geometry.angleDegrees(Point2(1820, 540), Point2(1920, 540))
        #expect(edge < centre)
        #expect(abs(centre - 2 * atan(50 * 527.0 / 1920 / 600) * 180 / Double.pi) < 1e-9)
    }
}
