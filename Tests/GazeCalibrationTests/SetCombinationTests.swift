import Foundation
import GazeCore
import GazeModel
import JSONStream
import Testing
import TestSupport
@testable import GazeCalibration

/// Frames with an appearance: landmarks of a face (inter-ocular ≈ 60 px) jittered per frame, and
/// eye patches of random pixels.
private func appearanceFrame(_ generator: inout SeededGenerator) -> GazeFeatures {
    var landmarks = [Float]()
    for index in 0..<68 {
        let x = 200 + 4 * Double(index % 17) + generator.gaussian(1.5)
        let y = 180 + 5 * Double(index / 17) + generator.gaussian(1.5)
        landmarks += [Float(x), Float(y)]
    }
    // The eye corners (36, 39 | 42, 45) 60 px apart on a level line.
    for (index, x) in [(36, 220.0), (39, 240.0), (42, 280.0), (45, 300.0)] {
        landmarks[2 * index] = Float(x + generator.gaussian(0.5))
        landmarks[2 * index + 1] = Float(200 + generator.gaussian(0.5))
    }
    let patches = (0..<256).map { _ in UInt8.random(in: 20...230, using: &generator) }
    return GazeFeatures(timestampSeconds: 0, pupilLeft: nil, pupilRight: nil, yawDegrees: generator.gaussian(3),
                        pitchDegrees: generator.gaussian(3), headX: 0, headY: 0, opennessLeft: 0.9, opennessRight: 0.9,
                        appearance: EyeAppearance(landmarks: landmarks, patches: patches))
}

@Suite("Combining feature sets")
struct SetCombinationTests {
    @Test("A blend is one appearance mapping that maps every frame to its parts' weighted mean gaze")
    func blendIsWeightedMean() throws {
        var generator = SeededGenerator(state: 3)
        let frames = (0..<12).map { _ in appearanceFrame(&generator) }
        // Given each linear set's mapping, standardised over the same frames
        var mappings: [GazeMapping] = []
        for set in [GazeFeatureSet.patches, .shape, .appearance] {
            let p = set.featureCount
            var raw = [Double](repeating: 0, count: frames.count * p)
            raw.withUnsafeMutableBufferPointer { buffer in
                for (index, frame) in frames.enumerated() { set.appearanceFeatures(frame, into: buffer.baseAddress! + index * p) }
            }
            let means = (0..<p).map { k in frames.indices.reduce(0) { $0 + raw[$1 * p + k] } / Double(frames.count) }
            let scales = (0..<p).map { k in
                max(1e-3, (frames.indices.reduce(0) { $0 + pow(raw[$1 * p + k] - means[k], 2) } / Double(frames.count)).squareRoot())
            }
            mappings.append(GazeMapping(featureSet: set, featureMeans: means, featureScales: scales,
                                        coefficientsX: (0...p).map { _ in generator.gaussian(20) },
                                        coefficientsY: (0...p).map { _ in generator.gaussian(20) }, ridgePenalty: 0.01))
        }
        let blend = MappingBlend(parts: [(.patches, 0.5), (.shape, 0.2), (.appearance, 0.3)])
        // When they are blended
        let blended = blend.mapping(mappings)
        // Then the blend reads the appearance features, and its gaze is the weighted mean of theirs
        #expect(blended.featureSet == .appearance)
        for frame in frames + (0..<5).map({ _ in appearanceFrame(&generator) }) {
            let parts = mappings.map { $0.map(frame)! }
            let expected = parts[0] * 0.5 + parts[1] * 0.2 + parts[2] * 0.3
            #expect(blended.map(frame)!.distance(to: expected) < 1e-8)
        }
    }

    @Test("Inverse-error weights: twice the error, a quarter of the weight; an exact part takes all")
    func inverseErrorWeights() {
        let weights = MappingBlend.inverseErrorWeights([10, 20])
        #expect(abs(weights[0] - 0.8) < 1e-12 && abs(weights[1] - 0.2) < 1e-12)
        #expect(MappingBlend.inverseErrorWeights([3, 0, 5]) == [0, 1, 0])
    }

    @Test("Stacked weights: the grid point whose blended left-out predictions lie nearest the targets")
    func stackedWeights() {
        let targets = [Point2(100, 100), Point2(500, 300), Point2(900, 700)]
        // Two parts biased in opposite directions: their even mix is exact
        let high = [targets.map { [$0 + Point2(30, 0), $0 + Point2(30, 0)] }, targets.map { [$0 - Point2(30, 0), $0 - Point2(30, 0)] }]
        #expect(MappingBlend.stackedWeights(high, targets: targets) == [0.5, 0.5])
        #expect(MappingBlend.crossValidationError(high, weights: [0.5, 0.5], targets: targets) < 1e-9)
        // An exact part beside a noisy one takes all the weight
        let exact = [targets.map { [$0, $0] }, targets.map { [$0 + Point2(0, 50), $0 - Point2(0, 20)] }]
        #expect(MappingBlend.stackedWeights(exact, targets: targets) == [1, 0])
        // The grid: every convex combination in 5 % steps, 231 for three parts
        let grid = MappingBlend.simplexGrid(parts: 3, steps: 20)
        #expect(grid.count == 231 && grid.allSatisfy { abs($0.reduce(0, +) - 1) < 1e-12 && $0.allSatisfy { $0 >= 0 } })
        #expect(MappingBlend.simplexGrid(parts: 1, steps: 20) == [[1]])
    }

    @Test("A blended calibration weighs the set that predicts its left-out targets best most, and its document names the blend")
    func blendedFit() throws {
        // Given eye patches that change with where the eyes look (two pixel patterns, in
        // proportion to the target's offset from the centre) and a face whose shape does not
        var generator = SeededGenerator(state: 11)
        let across = (0..<256).map { _ in generator.gaussian(1) }, down = (0..<256).map { _ in generator.gaussian(1) }
        var points: [CalibrationPointSamples] = []
        for fraction in CalibrationLayout.nine.calibrationFractions {
            let target = Point2(fraction.x * 1920, fraction.y * 1080)
            let samples = (0..<10).map { _ -> GazeFeatures in
                var frame = appearanceFrame(&generator)
                let patches = (0..<256).map { k in
                    UInt8(clamping: Int((125 + 40 * ((fraction.x - 0.5) * across[k] + (fraction.y - 0.5) * down[k])
                        + generator.gaussian(2)).rounded()))
                }
                frame.appearance = EyeAppearance(landmarks: frame.appearance!.landmarks, patches: patches)
                return frame
            }
            points.append(CalibrationPointSamples(target: target, samples: samples))
        }
        // When the fit blends the linear sets
        let fit = try CalibrationFitter { $0.combination = .inverseErrorBlend }.fit(points)
        // Then every linear set is in the blend, the patch-reading ones weighing more than the shape alone
        let weights = fit.blendWeights
        #expect(Set(weights.keys) == [.patches, .shape, .appearance])
        #expect(abs(weights.values.reduce(0, +) - 1) < 1e-12)
        #expect(weights[.patches]! > weights[.shape]! && weights[.appearance]! > weights[.shape]!)
        #expect(fit.mapping.featureSet == .appearance)
        #expect(fit.crossValidationErrorPoints <= fit.candidateErrorPoints.values.max()!)
        // And the weights travel with the calibration's document
        var record = try constructedRecord()
        record.blendWeights = weights
        let back = try CalibrationRecord(document: Array(try record.document().utf8), source: "test")
        #expect(back.blendWeights == weights)
        #expect(try record.document().contains("\"blend\":{\"patches\":"))
    }

    @Test("A chosen set is no blend: the default keeps one set, and its document has no blend member")
    func chosenSetIsNoBlend() throws {
        let record = try constructedRecord()
        #expect(record.blendWeights.isEmpty)
        #expect(try !record.document().contains("\"blend\""))
    }
}
