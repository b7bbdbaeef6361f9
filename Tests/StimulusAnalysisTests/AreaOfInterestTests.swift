import GazeModel
import Testing
@testable import StimulusAnalysis

@Suite struct AreaOfInterestTests {
    @Test func shapesHoldTheirInsides() {
        let rect = AOIShape.rect(x: 10, y: 20, width: 30, height: 40)
        #expect(rect.contains(Point2(10, 20)) && rect.contains(Point2(40, 60)) && !rect.contains(Point2(40.1, 30)))
        let ellipse = AOIShape.ellipse(centreX: 50, centreY: 50, radiusX: 20, radiusY: 10)
        #expect(ellipse.contains(Point2(70, 50)) && ellipse.contains(Point2(50, 40)) && !ellipse.contains(Point2(65, 58)))
        let triangle = AOIShape.polygon([Point2(0, 0), Point2(100, 0), Point2(0, 100)])
        #expect(triangle.contains(Point2(10, 10)) && triangle.contains(Point2(49, 49)) && !triangle.contains(Point2(51, 51)))
    }

    @Test func aKeyframedAreaMovesLinearlyAndExistsOnlyBetweenItsFirstAndLastKeyframes() throws {
        let ball = try AreaOfInterest(name: "ball", keyframes: [
            .init(seconds: 1, shape: .rect(x: 0, y: 0, width: 10, height: 10)),
            .init(seconds: 3, shape: .rect(x: 100, y: 50, width: 30, height: 10)),
        ])
        #expect(ball.shape(at: 0.99) == nil)
        #expect(ball.shape(at: 1) == .rect(x: 0, y: 0, width: 10, height: 10))
        #expect(ball.shape(at: 2) == .rect(x: 50, y: 25, width: 20, height: 10))
        #expect(ball.shape(at: 3) == .rect(x: 100, y: 50, width: 30, height: 10))
        #expect(ball.shape(at: 3.01) == nil)
        #expect(ball.existence(durationSeconds: 10) == 1...3)
        #expect(ball.existence(durationSeconds: 2.5) == 1...2.5)
        #expect(ball.existence(durationSeconds: 0.5) == nil)
    }

    @Test func keyframesOutOfOrderOrOfDifferentShapesAreRefused() {
        #expect(throws: StimulusError.self) {
            try AreaOfInterest(name: "x", keyframes: [.init(seconds: 2, shape: .rect(x: 0, y: 0, width: 1, height: 1)),
                                                      .init(seconds: 1, shape: .rect(x: 0, y: 0, width: 1, height: 1))])
        }
        #expect(throws: StimulusError.self) {
            try AreaOfInterest(name: "x", keyframes: [.init(seconds: 1, shape: .rect(x: 0, y: 0, width: 1, height: 1)),
                                                      .init(seconds: 2, shape: .ellipse(centreX: 0, centreY: 0, radiusX: 1, radiusY: 1))])
        }
    }

    @Test func theDocumentReadsEveryShapeAndNamesWhatIsWrong() throws {
        let text = """
            [{"name": "logo", "rect": [0, 0, 10, 10]}, {"name": "face", "ellipse": [50, 50, 5, 8]},
             {"name": "hand", "polygon": [[0, 0], [10, 0], [0, 10]]},
             {"name": "ball", "keyframes": [{"t": 0.0, "rect": [0, 0, 4, 4]}, {"t": 4.5, "rect": [9, 9, 4, 4]}]}]
            """
        let areas = try AOIDocument.areas(Array(text.utf8), source: "aois.json")
        #expect(areas.map(\.name) == ["logo", "face", "hand", "ball"])
        #expect(areas[1].shape(at: 0) == .ellipse(centreX: 50, centreY: 50, radiusX: 5, radiusY: 8))
        #expect(areas[3].existence(durationSeconds: 10) == 0...4.5)
        func problem(_ text: String) -> String {
            do { _ = try AOIDocument.areas(Array(text.utf8), source: "a.json"); return "" } catch { return "\(error)" }
        }
        #expect(problem(#"[{"name": "b", "keyframes": [{"t": 2, "rect": [0,0,1,1]}, {"t": 1, "rect": [0,0,1,1]}]}]"#)
            == "cannot read the areas of interest in a.json: area \"b\": its keyframes are out of time order (1.0 s after 2.0 s)")
        #expect(problem(#"[{"name": "b", "rect": [0, 0, 1]}]"#) == "cannot read the areas of interest in a.json: area \"b\": \"rect\" needs 4 numbers")
        #expect(problem(#"[{"rect": [0, 0, 1, 1]}]"#) == "cannot read the areas of interest in a.json: area 1 has no \"name\"")
        #expect(problem(#"[{"name": "a", "rect": [0,0,1,1]}, {"name": "a", "rect": [0,0,1,1]}]"#)
            == "cannot read the areas of interest in a.json: two areas are named \"a\"")
        #expect(problem("{").hasPrefix("cannot read the areas of interest in a.json: "))
    }
}
