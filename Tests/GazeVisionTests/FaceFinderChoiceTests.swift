import GazeModel
import Testing
@testable import GazeVision

/// Which face the tracker follows when the detector finds several.
@Suite("Face choice among several")
struct FaceTrackerChoiceTests {
    static let centre = Point2(320, 240)

    static func box(centreX: Int, centreY: Int, size: Int) -> FaceBox {
        FaceBox(left: centreX - size / 2, top: centreY - size / 2, right: centreX - size / 2 + size - 1,
                bottom: centreY - size / 2 + size - 1, score: 1)
    }

    @Test("the largest face wins when the others are more than 20 % smaller in area, even if more central")
    func largest() {
        let near = Self.box(centreX: 320, centreY: 240, size: 100)
        let large = Self.box(centreX: 100, centreY: 100, size: 120)  // 1.44× the area
        #expect(FaceFinder.choose([near, large], imageCentre: Self.centre) == large)
    }

    @Test("among faces within 20 % of the largest's area, the most central")
    func central() {
        let large = Self.box(centreX: 100, centreY: 100, size: 110)
        let central = Self.box(centreX: 330, centreY: 250, size: 100)  // 0.83× the area
        let small = Self.box(centreX: 320, centreY: 240, size: 60)
        #expect(FaceFinder.choose([large, small, central], imageCentre: Self.centre) == central)
    }

    @Test("no face, no choice")
    func none() {
        #expect(FaceFinder.choose([], imageCentre: Self.centre) == nil)
    }
}
