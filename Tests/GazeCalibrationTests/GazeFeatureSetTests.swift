import Foundation
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import GazeCalibration

/// The raw features of a linear set as the enum of the version before wrote them, kept here
/// verbatim as the reference: every set's own type must write the very same bits, so calibrations
/// stored before map exactly as they did.
private func referenceFeatures(_ name: String, _ features: GazeFeatures, into output: UnsafeMutablePointer<Double>) {
    let appearance = features.appearance!
    let landmarks = appearance.landmarks
    func point(_ index: Int) -> Point2 { Point2(Double(landmarks[2 * index]), Double(landmarks[2 * index + 1])) }
    let right = (point(36) + point(39)) / 2, left = (point(42) + point(45)) / 2
    let axis = left - right
    let distance = Swift.max(axis.length, 1e-6)
    let ux = axis / distance, uy = Point2(-ux.y, ux.x)
    let centre = (left + right) / 2
    output[0] = atan2(ux.y, ux.x) * 180 / Double.pi
    output[1] = distance
    output[2] = centre.x
    output[3] = centre.y
    output[4] = features.yawDegrees
    output[5] = features.pitchDegrees
    var index = 6
    if name == "appearance" || name == "shape" {
        for landmark in 17...67 {
            let d = point(landmark) - centre
            output[index] = d.dot(ux) / distance
            output[index + 1] = d.dot(uy) / distance
            index += 2
        }
    }
    guard name != "shape" else { return }
    guard name != "patchMean" else { return EyeDetailFeatures.meanPatch(appearance, into: output + index) }
    EyeDetailFeatures.normalisedPatches(appearance, into: output + index)
    let patches = UnsafePointer(output + index)
    index += 2 * EyeAppearance.patchPixels
    switch name {
    case "patchGradients": EyeDetailFeatures.gradients(patches, into: output + index)
    case "patchIris": EyeDetailFeatures.irisCentroids(patches, into: output + index)
    default: break
    }
}

@Suite("Gaze feature sets")
struct GazeFeatureSetTests {
    @Test("every set is registered once, found by its stored name, with the counts calibration documents state")
    func registry() {
        let names = GazeFeatureSet.allCases.map(\.rawValue)
        #expect(names == ["pupilPolynomial", "patches", "shape", "appearance", "patchGradients", "patchIris", "patchMean",
                          "patchClipped", "patchRank", "appearanceClipped", "appearanceUpper", "patchesNoPose", "appearanceNoPose",
                          "patchesNoseFrame", "appearanceNoseFrame", "patchContrast", "appearanceContrast", "patchInner"])
        #expect(Set(GazeFeatureSet.allCases).count == names.count)
        for set in GazeFeatureSet.allCases { #expect(GazeFeatureSet(rawValue: set.rawValue) == set) }
        #expect(GazeFeatureSet(rawValue: "Patches") == nil && GazeFeatureSet(rawValue: "") == nil)
        #expect(GazeFeatureSet.allCases.map(\.featureCount) == [6, 262, 108, 364, 502, 268, 134, 262, 262, 364, 324, 260, 362,
                                                               262, 300, 262, 364, 150])
        #expect(GazeFeatureSet.allCases.map(\.termCount) == [10, 263, 109, 365, 503, 269, 135, 263, 263, 365, 325, 261, 363,
                                                            263, 301, 263, 365, 151])
        #expect(GazeFeatureSet.allCases.filter(\.isPolynomial) == [.pupilPolynomial])
        #expect(GazeFeatureSet.allCases.filter(\.isAppearanceSubset) == [.patches, .shape, .appearance, .appearanceUpper, .patchesNoPose, .appearanceNoPose])
    }

    @Test("each linear set writes, bit for bit, the features the enum before it wrote")
    func sameBits() {
        var participant = PatchParticipant(seed: 7)
        let frames = (0..<12).map { k in
            participant.frame(Point2(100 + 150 * Double(k), 80 + 70 * Double(k)), pupil: true, openness: 0.85, steady: k % 2 == 0)
        }
        // The sets the version before had (the later candidates have no "before").
        let before: Set<String> = ["patches", "shape", "appearance", "patchGradients", "patchIris", "patchMean"]
        for set in GazeFeatureSet.allCases where before.contains(set.rawValue) {
            for frame in frames {
                var now = [Double](repeating: .nan, count: set.featureCount), before = now
                now.withUnsafeMutableBufferPointer { set.appearanceFeatures(frame, into: $0.baseAddress!) }
                before.withUnsafeMutableBufferPointer { referenceFeatures(set.rawValue, frame, into: $0.baseAddress!) }
                #expect(now.map(\.bitPattern) == before.map(\.bitPattern), "\(set)")
            }
        }
    }

    @Test("the blend's index of each feature in `appearance`: the head, then the shape, then the patches")
    func appearanceIndices() {
        let head = 6, shape = 102
        #expect((0..<262).map { MappingBlend.appearanceIndex(.patches, $0) } == Array(0..<head) + Array((head + shape)..<364))
        #expect((0..<108).map { MappingBlend.appearanceIndex(.shape, $0) } == Array(0..<108))
        #expect((0..<364).map { MappingBlend.appearanceIndex(.appearance, $0) } == Array(0..<364))
    }
}
