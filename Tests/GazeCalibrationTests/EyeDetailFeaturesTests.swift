import Foundation
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import GazeCalibration

/// A frame whose left eye's patch is bright (200) but for a dark band (50) over `darkColumns`, and
/// whose right eye's patch is a horizontal ramp (10 gray levels a column).
private func bandFrame(darkColumns: ClosedRange<Int>) -> GazeFeatures {
    var participant = PatchParticipant(seed: 31)
    var frame = participant.frame(Point2(960, 540), pupil: false, openness: 0.9, steady: true)
    let width = EyeAppearance.patchWidth
    let left = (0..<EyeAppearance.patchPixels).map { darkColumns.contains($0 % width) ? UInt8(50) : 200 }
    let right = (0..<EyeAppearance.patchPixels).map { UInt8(40 + 10 * ($0 % width)) }
    frame.appearance = EyeAppearance(landmarks: frame.appearance!.landmarks, patches: left + right)
    return frame
}

private func features(_ set: GazeFeatureSet, _ frame: GazeFeatures) -> [Double] {
    var output = [Double](repeating: .nan, count: set.featureCount)
    output.withUnsafeMutableBufferPointer { set.appearanceFeatures(frame, into: $0.baseAddress!) }
    return output
}

@Suite("Eye detail features")
struct EyeDetailFeaturesTests {
    @Test("The candidate sets extend `patches`: the head and both normalised patches first, exactly as `patches` reads them")
    func extendPatches() {
        let frame = bandFrame(darkColumns: 11...12)
        let patches = features(.patches, frame)
        for set in [GazeFeatureSet.patchGradients, .patchIris] {
            let extended = features(set, frame)
            #expect(Array(extended.prefix(patches.count)) == patches)
            #expect(extended.allSatisfy { $0.isFinite })
        }
        #expect(GazeFeatureSet.patchGradients.featureCount == 502 && GazeFeatureSet.patchIris.featureCount == 268)
    }

    @Test("Both eyes jointly: the head as for `patches`, then the two normalised patches' mean, pixel by pixel")
    func meanPatch() {
        let frame = bandFrame(darkColumns: 11...12)
        let patches = features(.patches, frame), joint = features(.patchMean, frame)
        let head = GazeFeatureSet.headFeatureCount, pixels = EyeAppearance.patchPixels
        #expect(joint.count == 134 && Array(joint.prefix(head)) == Array(patches.prefix(head)))
        for k in 0..<pixels {
            #expect(joint[head + k] == (patches[head + k] + patches[head + pixels + k]) / 2)
        }
    }

    @Test("Gradients are the normalised patch's differences across: zero on flat rows, one step a column on a ramp")
    func gradients() {
        let values = features(.patchGradients, bandFrame(darkColumns: 11...12))
        let gradients = Array(values.suffix(2 * EyeDetailFeatures.gradientCount))
        let perEye = EyeDetailFeatures.gradientCount
        // Left eye: into the band (column 10 → 11) down, out of it (12 → 13) up, flat elsewhere.
        let step = gradients[10]
        #expect(step < 0 && abs(gradients[12] + step) < 1e-12)
        for row in 0..<EyeAppearance.patchHeight {
            for column in 0..<(EyeAppearance.patchWidth - 1) {
                let value = gradients[row * (EyeAppearance.patchWidth - 1) + column]
                #expect(column == 10 || column == 12 ? abs(abs(value) - abs(step)) < 1e-12 : value == 0)
            }
        }
        // Right eye: a ramp of 10 levels a column over its standard deviation, the same everywhere.
        let ramp = (0..<16).map { 40.0 + 10 * Double($0) }
        let mean = ramp.reduce(0, +) / 16
        let deviation = (ramp.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 16).squareRoot()
        #expect(gradients[perEye...].allSatisfy { abs($0 - 10 / deviation) < 1e-9 })
    }

    @Test("The iris centre lies on the dark band, across and down; its squared offset grows toward the corners")
    func irisCentroid() {
        let middle = features(.patchIris, bandFrame(darkColumns: 7...8)).suffix(6).map { $0 }
        let corner = features(.patchIris, bandFrame(darkColumns: 12...13)).suffix(6).map { $0 }
        // Band over columns 7–8: centred; 12–13: at 13/16 of the way across.
        #expect(abs(middle[0] - 0.5) < 1e-12 && abs(middle[1] - 0.5) < 1e-12 && abs(middle[2]) < 1e-12)
        #expect(abs(corner[0] - 13.0 / 16) < 1e-12 && abs(corner[1] - 0.5) < 1e-12)
        #expect(abs(corner[2] - (5.0 / 16) * (5.0 / 16)) < 1e-12)
        // Right eye: a ramp darkest on the left, so its dark pixels centre left of the middle.
        #expect(corner[3] < 0.5 && corner[3] == middle[3])
    }

    @Test("A candidate set calibrates through the model choice and its mapping survives the calibration document")
    func calibratesAndRoundTrips() throws {
        var participant = PatchParticipant(seed: 32)
        let points = participant.nineTargets(shortForPatches: -1, pupilsElsewhere: false)
        for set in [GazeFeatureSet.patchGradients, .patchIris, .patchMean] {
            // Given the candidate joining the default sets as the preferred one
            let fitter = CalibrationFitter {
                $0.featureSets.append(set)
                $0.preferredSet = set
            }
            // When it fits
            let fit = try fitter.fit(points)
            // Then it is chosen, and it learns from the patches: its left-out error is a fraction
            // of that of the face's shape, which reads nothing of the eyes here
            #expect(fit.mapping.featureSet == set)
            let errors = fit.candidateErrorPoints
            #expect(errors[set]! < 0.3 * errors[.shape]!, "\(errors)")
            // And its mapping reads back from the calibration document the same, mapping alike
            var record = try constructedRecord()
            record.mapping = fit.mapping
            let back = try CalibrationRecord(document: Array(try record.document().utf8), source: "test")
            #expect(back.mapping == fit.mapping)
            let frame = participant.frame(Point2(700, 400), pupil: false, openness: 0.9, steady: true)
            #expect(back.mapping.map(frame) == fit.mapping.map(frame))
        }
    }

    @Test("Glasses' light: saturated or highlight pixels become the patch's median; the eye's own tones are kept")
    func clippedPatches() {
        let clean = bandFrame(darkColumns: 11...12)
        // Given the same frame with a glint (255) on four pixels of the left eye's bright part
        var glint = clean
        var pixels = clean.appearance!.patches
        for k in [2, 3, 18, 19] { pixels[k] = 255 }
        glint.appearance = EyeAppearance(landmarks: clean.appearance!.landmarks, patches: pixels)
        // Then `patches` reads the glint, `patchClipped` does not: it reads what the clean frame gives
        #expect(features(.patches, glint) != features(.patches, clean))
        #expect(features(.patchClipped, glint) == features(.patchClipped, clean))
        // And with no highlight (a dark band, a ramp) it reads exactly what `patches` reads
        #expect(features(.patchClipped, clean) == features(.patches, clean))
        let head = GazeFeatureSet.headFeatureCount, shape = GazeFeatureSet.shapeFeatureCount
        let appearance = features(.appearanceClipped, glint), plain = features(.appearance, glint)
        #expect(Array(appearance.prefix(head + shape)) == Array(plain.prefix(head + shape)))
        #expect(Array(appearance.suffix(from: head + shape)) == Array(features(.patchClipped, glint).suffix(from: head)))
        var clipped = [Double](repeating: 0, count: 2 * EyeAppearance.patchPixels)
        #expect(clipped.withUnsafeMutableBufferPointer { EyePatchFilters.clippedPatches(glint.appearance!, into: $0.baseAddress!) } == 4)
    }

    @Test("Ranks: a change of brightness and contrast that keeps the pixels' order changes nothing")
    func rankedPatches() {
        let frame = bandFrame(darkColumns: 3...5)
        var hazy = frame
        hazy.appearance = EyeAppearance(landmarks: frame.appearance!.landmarks,
                                        patches: frame.appearance!.patches.map { UInt8(60 + Int($0) * 3 / 4) })
        #expect(features(.patches, hazy) != features(.patches, frame))
        #expect(features(.patchRank, hazy) == features(.patchRank, frame))
        // Ties share their mean rank: the left patch's two levels become two values only
        let ranks = features(.patchRank, frame)
        let left = ranks[GazeFeatureSet.headFeatureCount..<(GazeFeatureSet.headFeatureCount + EyeAppearance.patchPixels)]
        #expect(Set(left).count == 2)
    }

    @Test("The upper face's shape: `appearance` without the mouth's landmarks, the blend's indices on `appearance`")
    func upperShape() {
        let frame = bandFrame(darkColumns: 11...12)
        let upper = features(.appearanceUpper, frame), all = features(.appearance, frame)
        let head = GazeFeatureSet.headFeatureCount, shape = GazeFeatureSet.shapeFeatureCount, kept = 2 * 31
        #expect(upper.count == 324)
        #expect(Array(upper.prefix(head + kept)) == Array(all.prefix(head + kept)))
        #expect(Array(upper.suffix(from: head + kept)) == Array(all.suffix(from: head + shape)))
        for k in 0..<upper.count { #expect(upper[k] == all[MappingBlend.appearanceIndex(.appearanceUpper, k)]) }
    }

    @Test("Without the pose: `patches` and `appearance` less yaw and pitch, the blend's indices on `appearance`")
    func withoutPose() {
        let frame = bandFrame(darkColumns: 11...12)
        for (set, full) in [(GazeFeatureSet.patchesNoPose, GazeFeatureSet.patches), (.appearanceNoPose, .appearance)] {
            let without = features(set, frame), with = features(full, frame)
            #expect(without == Array(with.prefix(4)) + Array(with.suffix(from: 6)), "\(set)")
            let all = features(.appearance, frame)
            for k in 0..<without.count { #expect(without[k] == all[MappingBlend.appearanceIndex(set, k)]) }
        }
    }
}
