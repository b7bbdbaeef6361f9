import Foundation
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import GazeVision

@Suite("dlib shim on real faces")
struct LandmarkModelTests {
    @Test("the detector finds the face in each portrait where dlib's reference put it",
          .enabled(if: VisionFixtures.available, VisionFixtures.missingReason),
          arguments: ["faces/sergey.png", "faces/astronaut.png"])
    func detects(name: String) throws {
        let image = try VisionFixtures.image(name)
        let reference = try #require(try VisionFixtures.imageFace(name))
        let boxes = try FaceDetector().detect(image, upsample: true)
        let best = try #require(boxes.first)
        #expect(VisionFixtures.overlap(best, reference.box) > 0.8, "\(best) vs \(reference.box)")
        #expect(best.score > 0)
    }

    @Test("landmarks fitted in the reference box agree with dlib's own output within a pixel",
          .enabled(if: VisionFixtures.available, VisionFixtures.missingReason),
          arguments: ["faces/sergey.png", "faces/astronaut.png"])
    func landmarks(name: String) throws {
        let image = try VisionFixtures.image(name)
        let reference = try #require(try VisionFixtures.imageFace(name))
        let box = FaceBox(left: reference.box[0], top: reference.box[1], right: reference.box[2], bottom: reference.box[3])
        let landmarks = try VisionFixtures.model().fit(image, box: box)
        let error = VisionFixtures.meanError(landmarks.points, reference.landmarks)
        #expect(error < 1.0, "mean landmark error \(error) px")
        #expect(try VisionFixtures.model().meanShape.confidence(of: landmarks) > 0.4)
    }

    @Test("a frame with no face yields no detection", .enabled(if: VisionFixtures.modelAvailable, VisionFixtures.missingReason))
    func noFace() throws {
        var pixels = [UInt8](repeating: 0, count: 320 * 240)
        for y in 0..<240 { for x in 0..<320 { pixels[y * 320 + x] = UInt8((x * 3 + y) % 256) } }
        let image = GrayImage(width: 320, height: 240, pixels: pixels)
        #expect(try FaceDetector().detect(image).isEmpty)
        let tracker = try FaceTracker(model: VisionFixtures.model())
        #expect(try tracker.process(image, timeSeconds: 0) == nil)
    }

    @Test("a missing model names the Debian package; a corrupt one says it is not a model")
    func badModels() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let missing = folder.path("none.dat")
        #expect(throws: VisionError.modelMissing(path: missing)) { try LandmarkModel(path: missing) }
        // The library names the package; the CLI adds how to install it and its own options.
        #expect(VisionError.modelMissing(path: missing).description.contains("libdlib-data"))
        #expect(!VisionError.modelMissing(path: missing).description.contains("--"))
        let corrupt = folder.path("corrupt.dat")
        try Data((0..<4096).map { UInt8($0 % 251) }).write(to: URL(fileURLWithPath: corrupt))
        #expect {
            try LandmarkModel(path: corrupt)
        } throws: { error in
            guard case VisionError.modelUnreadable(let path, _) = error else { return false }
            return path == corrupt && !"\(error)".contains("\n")
        }
        #expect { try LandmarkModel(path: folder.url.path) } throws: { error in
            if case VisionError.modelUnreadable = error { return true }
            return false
        }
    }
}
