import GazeAnalysis
import GazeModel
import Testing
@testable import StimulusAnalysis

/// The AOI metrics a Tobii Pro Lab user looks for, and the data quality beside them, on data with known answers.
@Suite struct ProLabMetricsTests {
    /// 4 s alternating every second between pixel (40, 30) ("left") and (200, 100) ("right"), starting right.
    static func alternating(_ id: String) throws -> StimulusViewing {
        let gaze = StimulusTestData.gaze(seconds: 4) { Int($0) % 2 == 1 ? Point2(40, 30) : Point2(200, 100) }
        return try StimulusTestData.viewing(id, seconds: 4, gaze: gaze)
    }

    static let areas = [AreaOfInterest(name: "left", shape: .rect(x: 20, y: 10, width: 40, height: 40)),
                        AreaOfInterest(name: "right", shape: .ellipse(centreX: 200, centreY: 100, radiusX: 10, radiusY: 10)),
                        AreaOfInterest(name: "nowhere", shape: .rect(x: 300, y: 0, width: 10, height: 10))]

    @Test func fixationAndVisitDurationsCountsAndTimesToFirstVisit() throws {
        let metrics = AOIAnalysis.metrics(try Self.alternating("s"), areas: Self.areas)
        let left = metrics[0], right = metrics[1], nowhere = metrics[2]
        // Each fixation lasts from its first sample to its last: 1 s less one step.
        let fixation = 1 - StimulusTestData.step
        #expect(left.fixationCount == 2 && left.totalFixationSeconds == 2 * fixation && left.averageFixationSeconds == fixation)
        #expect(left.visits == 2 && left.totalVisitSeconds == 2 * fixation && left.averageVisitSeconds == fixation)
        #expect(left.timeToFirstVisitSeconds == 1 && right.timeToFirstVisitSeconds == 0)
        #expect(nowhere.fixationCount == 0 && nowhere.totalFixationSeconds == 0 && nowhere.averageFixationSeconds == nil)
        #expect(nowhere.visits == 0 && nowhere.totalVisitSeconds == 0 && nowhere.averageVisitSeconds == nil && nowhere.timeToFirstVisitSeconds == nil)
    }

    @Test func aVisitLastsFromItsFirstFixationToItsLastInTheArea() throws {
        // Given two fixations in one large area (left half, then right half of it) and then one outside.
        let gaze = StimulusTestData.gaze(seconds: 3) { t in t < 1 ? Point2(40, 30) : t < 2 ? Point2(120, 30) : Point2(250, 150) }
        let viewing = try StimulusTestData.viewing("s", seconds: 3, gaze: gaze)
        let wide = AreaOfInterest(name: "wide", shape: .rect(x: 0, y: 0, width: 160, height: 60))
        let m = AOIAnalysis.metrics(viewing, areas: [wide])[0]
        // Then one visit from 0 s to the second fixation's end (2 s less a step), holding both fixations.
        #expect(m.fixationCount == 2 && m.visits == 1)
        #expect(m.totalVisitSeconds == 2 - StimulusTestData.step && m.averageVisitSeconds == 2 - StimulusTestData.step)
        #expect(m.totalFixationSeconds == 2 * (1 - StimulusTestData.step))
    }

    @Test func transitionsCountEveryOrderedPairInLongForm() throws {
        let transitions = AOIAnalysis.transitions(try Self.alternating("s"), areas: Self.areas, group: "g")
        func count(_ from: String, _ to: String) -> Int? { transitions.first { $0.from == from && $0.to == to }?.count }
        // right → left at 1 s and 3 s, left → right at 2 s; every other ordered pair 0.
        #expect(transitions.count == 6 && transitions.allSatisfy { $0.session == "s" && $0.group == "g" })
        #expect(count("right", "left") == 2 && count("left", "right") == 1)
        #expect(count("left", "nowhere") == 0 && count("nowhere", "right") == 0)
    }

    @Test func groupRowsAreTheMeansOfTheirParticipants() throws {
        // Given participants a1, a2 in group A (identical) and b1 in group B who looks only right.
        var metrics = AOIAnalysis.metrics(try Self.alternating("a1"), areas: Self.areas).map { var m = $0; m.group = "A"; return m }
        metrics += AOIAnalysis.metrics(try Self.alternating("a2"), areas: Self.areas).map { var m = $0; m.group = "A"; return m }
        let right = try StimulusTestData.viewing("b1", seconds: 4, gaze: StimulusTestData.gaze(seconds: 4) { _ in Point2(200, 100) })
        metrics += AOIAnalysis.metrics(right, areas: Self.areas).map { var m = $0; m.group = "B"; return m }
        let groups = AOIAnalysis.groups(metrics)
        #expect(groups.map(\.group) == ["A", "A", "A", "B", "B", "B"])
        let aLeft = groups[0], bLeft = groups[3], bRight = groups[4]
        #expect(aLeft.participants == 2 && aLeft.participantsFixating == 2 && aLeft.fixationCount == 2 && aLeft.timeToFirstFixationSeconds == 1)
        #expect(bLeft.participants == 1 && bLeft.participantsFixating == 0 && bLeft.dwellSeconds == 0 && bLeft.timeToFirstFixationSeconds == nil)
        #expect(bRight.fixationCount == 1 && bRight.totalFixationSeconds == 4 - StimulusTestData.step && bRight.dwellSeconds == 4)
    }

    @Test func validShareAndPrecisionOverTheInterval() throws {
        // Given 4 s of gaze jittering one point left and right of (200, 100) every sample, the last quarter without a face.
        let gaze = (0..<128).map { index -> GazeSample in
            let t = Double(index) * StimulusTestData.step, point = StimulusTestData.screen(Point2(200, 100))
            var sample = GazeSample(timestampSeconds: StimulusTestData.begin + t, x: point.x + (index % 2 == 0 ? 0.5 : -0.5), y: point.y,
                                    orientation: 3)
            if index >= 96 { sample.trackingState = .missing }
            return sample
        }
        let viewing = try StimulusTestData.viewing("s", seconds: 4, gaze: gaze)
        // Then three quarters are valid, and successive samples within the fixation are 1 point apart:
        // RMS-S2S 1 point, 1/40 degree at 40 points per degree.
        #expect(viewing.quality.samples == 128 && viewing.quality.validShare == 0.75)
        #expect(viewing.quality.precisionPoints == 1 && viewing.quality.precisionDegrees == 1.0 / 40)
        let criteria = QualityCriteria(minimumValidShare: 0.8)
        #expect(criteria.exclusion(viewing.quality) == "its share of valid samples 0.750 is below 0.8")
        #expect(QualityCriteria(minimumValidShare: 0.7).exclusion(viewing.quality) == nil)
        var calibrated = viewing.quality
        calibrated.accuracyDegrees = 2.5
        #expect(QualityCriteria(maximumAccuracyDegrees: 2).exclusion(calibrated) == "its calibration's accuracy 2.50° is worse than 2°")
        #expect(QualityCriteria(maximumAccuracyDegrees: 2).exclusion(viewing.quality)?.hasPrefix("its calibration's accuracy in degrees is unknown") == true)
    }
}
