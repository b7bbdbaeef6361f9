import Foundation
import GazeCapture
import GazeCore
import GazeVision
import Testing
import TestSupport

/// The look at a frame without a face: a turned picture, a face too small for the finder.
@Suite("NoFaceProbe on real frames")
struct NoFaceProbeTests {
    /// The blink clip's first frame (400 × 300, a face about 95 px wide) shrunk by `factor` into the
    /// middle of a black frame of the same size.
    static func shrunkIntoBlack(_ image: GrayImage, by factor: Int) -> GrayImage {
        let small = image.downscaled(by: factor)
        var pixels = [UInt8](repeating: 0, count: image.width * image.height)
        let left = (image.width - small.width) / 2, top = (image.height - small.height) / 2
        for y in 0..<small.height {
            for x in 0..<small.width { pixels[(top + y) * image.width + left + x] = small.pixels[y * small.width + x] }
        }
        return GrayImage(width: image.width, height: image.height, pixels: pixels)
    }

    @Test("turned by 180°, 90° and 270°: the turn that makes it upright; upright: nothing; at half its size: too small; blank: nothing",
          .enabled(if: VisionFixtures.available, VisionFixtures.missingReason))
    func findings() throws {
        let image = try VisionFixtures.image("video/cap13_blinks_20s.mp4")
        let probe = NoFaceProbe()
        #expect(try probe.look(image.turnedClockwise(quarterTurns: 2)) == .turned(clockwiseDegrees: 180))
        #expect(try probe.look(image.turnedClockwise(quarterTurns: 1)) == .turned(clockwiseDegrees: 270))
        #expect(try probe.look(image.turnedClockwise(quarterTurns: 3)) == .turned(clockwiseDegrees: 90))
        #expect(try probe.look(image) == nil)
        #expect(try probe.look(Self.shrunkIntoBlack(image, by: 2)) == .tooSmall)
        #expect(try probe.look(GrayImage(width: 400, height: 300, pixels: [UInt8](repeating: 128, count: 400 * 300))) == nil)
    }

    @Test("once a second while no face is reported, never while one is; a face forgets the finding")
    func pace() throws {
        let probe = NoFaceProbe()
        let blank = GrayImage(width: 400, height: 300, pixels: [UInt8](repeating: 128, count: 400 * 300))
        for frame in 0..<50 { _ = try probe.frame(blank, timeSeconds: Double(frame) / 25, faceReported: false) }
        // Frames at 0 … 1.96 s: looks at 1.0 s only (the first second without a face).
        #expect(probe.looks == 1)
        for frame in 50..<60 { _ = try probe.frame(blank, timeSeconds: Double(frame) / 25, faceReported: true) }
        #expect(probe.looks == 1 && probe.finding == nil)
    }
}
