import Foundation
import GazeCalibration
import GazeModel
import JSONStream
import Testing
import TestSupport
@testable import GazeCore

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

    @Test("Too few targets left after skipping: refused, naming each failed target and why")
    func refusesTooFewSamples() {
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 5))
        var calibration = participant.points(.five)
        // Given target 4 of 5 with only 5 of 36 frames having a pupil (the rest: eyes shut or face not normal)
        for index in 5..<36 {
            if index % 2 == 0 {
                calibration[3].samples[index].pupilLeft = nil
                calibration[3].samples[index].pupilRight = nil
            } else {
                calibration[3].samples[index].trackingNormal = false
            }
        }
        // Then 4 of 5 remain, fewer than the 5 a five-target calibration needs
        let failed = SkippedCalibrationPoint(point: 3, target: calibration[3].target, usable: 5, collected: 36, needed: 8)
        #expect(throws: CalibrationError.tooFewTargets(failed: [failed], remaining: 4, needed: 5, spread: true)) {
            try CalibrationFitter().fit(calibration)
        }
        #expect(throws: CalibrationError.tooFewPoints(have: 4, needed: 5)) {
            try CalibrationFitter().fit(Array(calibration.prefix(4)))
        }
        // With nine targets, three of them failing leave 6 of the 7 needed: each is named
        var nine = participant.points(.nine)
        for index in [2, 5, 7] { nine[index].samples = Array(nine[index].samples.prefix(3)) }
        do {
            _ = try CalibrationFitter().fit(nine)
            Issue.record("three failed targets of nine were accepted")
        } catch {
            #expect(error.description.hasPrefix("only 6 of 9 calibration targets kept enough usable samples (needs 7): "))
            for index in [2, 5, 7] {
                #expect(error.description.contains("calibration point \(index + 1) at (\(Int(nine[index].target.x)), "
                                                   + "\(Int(nine[index].target.y))) has 3 usable samples of 3 (needs 8)"))
            }
        }
    }

    @Test("A target without usable samples is skipped; the fit goes on with the rest and stays exact")
    func skipsABadTarget() throws {
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 6))
        var calibration = participant.points(.nine)
        // Given target 7 (a bottom corner) whose frames all lost the face's pupils
        for index in calibration[6].samples.indices {
            calibration[6].samples[index].pupilLeft = nil
            calibration[6].samples[index].pupilRight = nil
        }
        // When fitted
        let fit = try CalibrationFitter().fit(calibration)
        // Then it is skipped, named, and the others map the validation targets exactly
        #expect(fit.skipped == [SkippedCalibrationPoint(point: 6, target: calibration[6].target, usable: 0, collected: 36,
                                                        needed: 8)])
        #expect(fit.points.count == 9 && fit.points[6].meanErrorPoints == nil && fit.points[5].meanErrorPoints != nil)
        let report = ValidationReport.measure(mapping: fit.mapping, targets: participant.points(.nine, validation: true),
                                              geometry: nil)
        #expect(report.accuracyPoints <= 1)
        // Two skipped of nine still fit (7 remain); the minimum is a quarter lost, never below five
        calibration[1].samples = []
        #expect(try CalibrationFitter().fit(calibration).skipped.map(\.point) == [1, 6])
        #expect([5, 8, 9, 13].map { CalibrationFitter().minimumTargets(of: $0) } == [5, 6, 7, 10])
    }

    @Test("A set goes without a target it cannot read: one target short for the patches, the pupils hidden elsewhere")
    func skipsATargetForOneSet() throws {
        var participant = PatchParticipant(seed: 12)
        // Given nine targets whose pupils went unseen (reflections on glasses), but for target 5:
        // there a pupil shows in every frame, 16 of its 36 frames are blinks and 14 of the open
        // ones unsteady, so 6 are steady with the eyes open, fewer than the 8 the patches need.
        let points = participant.nineTargets(shortForPatches: 4, pupilsElsewhere: false)
        let targets = points.map(\.target)
        // When fitted
        let fit = try CalibrationFitter().fit(points)
        // Then the eye patches (with the face's shape: `appearance`, the preferred set) map the other
        // eight, target 5 skipped for them, within 3 % of the screen's width
        #expect(fit.mapping.featureSet == .appearance)
        #expect(fit.skipped == [SkippedCalibrationPoint(point: 4, target: targets[4], usable: 6, collected: 36, needed: 8,
                                                        set: .appearance)])
        #expect(fit.trainingErrorPoints < 58, "training error \(fit.trainingErrorPoints) pt")
    }

    @Test("Sets are compared on the targets both learn from: going without the hardest target wins nothing")
    func comparesSetsOnSharedTargets() throws {
        var participant = PatchParticipant(seed: 14)
        // Given pupils at every target, and at target 5 also a glint pulling its pupils aside and
        // blinks leaving the patches short there
        let points = participant.nineTargets(shortForPatches: 4, shortPupilShift: 0.05, pupilsElsewhere: true)
        // When fitted with the lowest cross-validated error winning (no preferred set)
        let fit = try CalibrationFitter { $0.preferredSet = nil }.fit(points)
        // Then the patches' own error, over the 8 targets without the hard one, is the lower; but
        // over those 8 the polynomial set predicts better, so it wins and keeps all nine
        let own = fit.candidateErrorPoints
        #expect(own[.patches]! < own[.pupilPolynomial]!, "\(own)")
        #expect(fit.mapping.featureSet == .pupilPolynomial)
        #expect(fit.skipped.isEmpty)
        // Whatever order the sets are tried in
        let reversed = try CalibrationFitter { $0.featureSets = [.pupilPolynomial, .shape, .patches, .appearance]; $0.preferredSet = nil }
            .fit(points)
        #expect(reversed.mapping.featureSet == .pupilPolynomial)
    }

    @Test("When no set fits, the failure that names targets is told, not 'the samples do not determine a mapping'")
    func toldFailureNamesTargets() {
        var participant = PatchParticipant(seed: 15)
        let targets = CalibrationLayout.nine.calibrationFractions.map { Point2($0.x * 1920, $0.y * 1080) }
        // Given a glint held where the pupil is searched for at every target (a still "pupil": the
        // polynomial set cannot be determined), and blinks leaving the patches short at three targets
        let points = targets.enumerated().map { index, target in
            CalibrationPointSamples(target: target, samples: (0..<36).map { k in
                participant.frame(target, pupil: true, stillPupil: Point2(0.5, 0.1),
                                  openness: [1, 4, 7].contains(index) && k < 30 ? (k % 2 == 0 ? 0.05 : 0.9) : 0.9,
                                  steady: !([1, 4, 7].contains(index) && k % 2 == 1))
            })
        }
        // Then the fit fails naming the three targets the patches could not read, and why
        do {
            _ = try CalibrationFitter().fit(points)
            Issue.record("a calibration without a readable pupil and three targets short for the patches was accepted")
        } catch {
            guard case let .tooFewTargets(failed, 6, 7, true) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failed.map(\.point) == [1, 4, 7] && failed.allSatisfy { $0.set == .appearance })
        }
    }

    @Test("Targets left only on one side of the screen are refused: they do not span it")
    func refusesUnspreadTargets() {
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 8))
        // Given eight targets, six in the left third of the screen and two on its right edge
        let targets = [Point2(100, 100), Point2(600, 100), Point2(100, 540), Point2(600, 540), Point2(100, 980),
                       Point2(600, 980), Point2(1820, 100), Point2(1820, 980)]
        var points = targets.map { CalibrationPointSamples(target: $0, samples: participant.samples(at: $0, count: 30)) }
        // When one right-edge target fails, the other still spans the screen: the fit goes on
        points[6].samples = []
        #expect((try? CalibrationFitter().fit(points))?.skipped.map(\.point) == [6])
        // When both fail, 6 of 8 is enough by count, but they cover under half the screen's width: refused
        points[7].samples = []
        do {
            _ = try CalibrationFitter().fit(points)
            Issue.record("targets in a third of the screen were accepted")
        } catch {
            guard case .tooFewTargets(let failed, 6, 6, false) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failed.map(\.point) == [6, 7])
            #expect(error.description.contains("do not span the screen"))
        }
    }

    @Test("Looking down is not a blink: narrowed eyes held through a target keep their frames; a blink's dip does not")
    func judgesClosedEyesPerTarget() throws {
        let judge = EyeClosureJudge()
        func frame(_ openness: Double) -> GazeFeatures {
            GazeFeatures(timestampSeconds: 0, pupilLeft: nil, pupilRight: nil, yawDegrees: 0, pitchDegrees: 0, headX: 0,
                         headY: 0, opennessLeft: openness, opennessRight: openness + 0.02,
                         appearance: EyeAppearance(landmarks: [Float](repeating: 0, count: 136),
                                                   patches: [UInt8](repeating: 0, count: 256)))
        }
        // A look at a low target: the lids follow the eyes, openness 0.05–0.15 throughout
        let down = (0..<30).map { frame(0.05 + 0.1 * Double($0 % 3) / 2) }
        #expect(down.allSatisfy { !$0.eyesOpen })
        #expect(judge.judged(down).allSatisfy { $0.eyesOpen })
        // A blink at a target looked at with open eyes: its 5 frames are closed, the rest open
        let blink = (0..<30).map { frame((10..<15).contains($0) ? 0.05 : 0.9) }
        let judged = judge.judged(blink)
        #expect(judged.indices.filter { !judged[$0].eyesOpen } == Array(10..<15))
        // A narrowing that is not shut (openness 0.4 at a target of 0.9) is open
        #expect(judge.judged((0..<30).map { frame($0 < 5 ? 0.4 : 0.9) }).allSatisfy { $0.eyesOpen })
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
