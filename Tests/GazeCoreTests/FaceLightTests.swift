import GazeModel
import Testing
@testable import GazeCore

@Suite("The light on a face and around it")
struct FaceLightTests {
    @Test("a lit box on a dark picture: the box's mean, no contrast, the surround's mean; half-and-half gives its spread")
    func constructed() {
        // Given a 64 × 48 picture at 50 with the box x 16…47, y 12…35 at 200
        var pixels = [UInt8](repeating: 50, count: 64 * 48)
        for y in 12...35 { for x in 16...47 { pixels[y * 64 + x] = 200 } }
        let image = GrayImage(width: 64, height: 48, pixels: pixels)
        // Then
        let light = FaceLight(in: image, box: (16, 12, 47, 35))
        #expect(light.face == 200.0 / 255 && light.contrast == 0 && light.background == 50.0 / 255)
        // And a box whose left half is 0 and right half 255: mean ½, standard deviation ½.
        var split = [UInt8](repeating: 0, count: 64 * 48)
        for y in 0..<48 { for x in 32..<64 { split[y * 64 + x] = 255 } }
        let halves = FaceLight(in: GrayImage(width: 64, height: 48, pixels: split), box: (0, 0, 63, 47))
        #expect(abs(halves.face - 0.5) < 0.02 && abs(halves.contrast - 0.5) < 0.02)
        // A box filling the picture leaves no surround: the background is the box's mean.
        #expect(halves.background == halves.face)
    }

    @Test("the share of saturated pixels")
    func saturated() {
        #expect(FaceLight.saturatedShare([250, 255, 249, 0], from: 250) == 0.5)
        #expect(FaceLight.saturatedShare([], from: 250) == 0)
    }
}
