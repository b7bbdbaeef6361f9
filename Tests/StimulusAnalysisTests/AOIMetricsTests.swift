import GazeModel
import Testing
@testable import StimulusAnalysis

@Suite struct AOIMetricsTests {
    @Test func dwellFixationsAndVisitsOfGazeAlternatingBetweenTwoAreas() throws {
        // Given 4 s alternating every second between pixel (40, 30) and (200, 100), starting at (200, 100);
        // happy while at (40, 30), smile 0.9 there and 0.1 elsewhere.
        let at = { (t: Double) in Int(t) % 2 == 1 }
        let gaze = StimulusTestData.gaze(seconds: 4) { at($0) ? Point2(40, 30) : Point2(200, 100) }
        let smile = (0..<128).map { (1000 + Double($0) * StimulusTestData.step, at(Double($0) * StimulusTestData.step) ? 0.9 : 0.1) }
        let viewing = try StimulusTestData.viewing("s", seconds: 4, gaze: gaze,
                                                   expressions: StimulusTestData.expressions(seconds: 4, at), smile: smile)
        let areas = [AreaOfInterest(name: "left", shape: .rect(x: 20, y: 10, width: 40, height: 40)),
                     AreaOfInterest(name: "right", shape: .ellipse(centreX: 200, centreY: 100, radiusX: 10, radiusY: 10)),
                     AreaOfInterest(name: "both", shape: .rect(x: 0, y: 0, width: 320, height: 180)),
                     AreaOfInterest(name: "nowhere", shape: .rect(x: 300, y: 0, width: 10, height: 10))]
        let metrics = AOIAnalysis.metrics(viewing, areas: areas)
        let left = metrics[0], right = metrics[1], both = metrics[2], nowhere = metrics[3]
        // Then each sample stands for 1/32 s (the last for the step before it): 2 s in each area.
        #expect(left.dwellSeconds == 2 && left.dwellShare == 0.5)
        #expect(right.dwellSeconds == 2 && right.dwellShare == 0.5)
        #expect(both.dwellSeconds == 4 && both.dwellShare == 1)  // overlapping areas each count
        #expect(nowhere.dwellSeconds == 0 && nowhere.dwellShare == 0)
        #expect(left.timeToFirstFixationSeconds == 1 && right.timeToFirstFixationSeconds == 0)
        #expect(left.firstFixationSeconds == 1 - StimulusTestData.step)
        #expect(left.fixationCount == 2 && right.fixationCount == 2)
        #expect(left.visits == 2 && right.visits == 2 && both.visits == 1 && both.fixationCount == 4)
        #expect(nowhere.timeToFirstFixationSeconds == nil && nowhere.fixationCount == 0 && nowhere.visits == 0)
        #expect(left.dominantExpression == .happy && right.dominantExpression == .neutral)
        #expect(abs(left.smile! - 0.9) < 1e-12 && abs(right.smile! - 0.1) < 1e-12)
        #expect(nowhere.dominantExpression == nil && nowhere.smile == nil)
    }

    @Test func aKeyframedAreaCountsOnlyWhileItExistsAndFollowsItsMotion() throws {
        // Given gaze following a point moving 40 pixels a second to the right from (20, 90), for 4 s.
        let gaze = StimulusTestData.gaze(seconds: 4) { Point2(20 + 40 * $0, 90) }
        let viewing = try StimulusTestData.viewing("s", seconds: 4, gaze: gaze)
        // And a 10-pixel box around it existing from 1 s to 3 s, and a static one where it is at 0 s.
        let box = try AreaOfInterest(name: "box", keyframes: [
            .init(seconds: 1, shape: .rect(x: 55, y: 85, width: 10, height: 10)),
            .init(seconds: 3, shape: .rect(x: 135, y: 85, width: 10, height: 10)),
        ])
        let start = AreaOfInterest(name: "start", shape: .rect(x: 15, y: 85, width: 10, height: 10))
        let metrics = AOIAnalysis.metrics(viewing, areas: [box, start])
        // Then the box holds the gaze all of its 2 s (samples 1 s … 3 s inclusive: 65 of 1/32 s).
        #expect(metrics[0].dwellSeconds == 65 * StimulusTestData.step)
        #expect(metrics[0].dwellShare == 1)  // capped: the sample at 3 s stands for time after the box is gone
        // The static box holds it while within 5 pixels of x 20: 0 … 0.125 s (5 samples).
        #expect(metrics[1].dwellSeconds == 5 * StimulusTestData.step)
        #expect(metrics[1].dwellShare == 5 * StimulusTestData.step / 4)
    }
}
