import GazeCore
import GazeModel
import Testing
@testable import FaceExpression

/// The face crop's geometry and scaling on constructed images: exact values.
@Suite("Face crop")
struct FaceCropTests {
    /// Landmarks spanning the box (100, 100)–(200, 180): 68 points on its corners and centre.
    static let landmarks = FaceLandmarks(points: (0..<68).map { index in
        [Point2(100, 100), Point2(200, 180), Point2(150, 140), Point2(100, 180)][index % 4]
    })

    @Test("The square is 1.2 × the box's larger side, centred on the box and raised by a tenth of its side")
    func geometry() {
        let image = GrayImage(width: 400, height: 300, pixels: [UInt8](repeating: 0, count: 400 * 300))
        let crop = FaceCrop(image: image, landmarks: Self.landmarks)
        #expect(crop.sidePixels == 120)
        #expect(crop.origin == Point2(150 - 60, 140 - 12 - 60))
        #expect(crop.values.count == 64 * 64)
    }

    @Test("Gray levels map to −1…1 and each output pixel samples the frame at its centre")
    func scaling() {
        // Left half of the frame black, right half white: the square's columns left of x = 200 are −1.
        let pixels = (0..<300).flatMap { _ in (0..<400).map { x in x < 150 ? UInt8(0) : 255 } }
        let crop = FaceCrop(image: GrayImage(width: 400, height: 300, pixels: pixels), landmarks: Self.landmarks)
        // Column c samples x = 90 + (c + 0.5) · 120/64 − 0.5; x < 149 is black, x > 150 white.
        #expect(crop.values[0] == -1)
        #expect(crop.values[63] == 1)
        let firstWhite = (0..<64).first { crop.values[$0] == 1 }!
        #expect(firstWhite == 32, "90 + 32.5 × 1.875 − 0.5 = 150.4: the first column past the edge")
    }
}
