import GazeAnalysis
import GazeModel
import Testing
@testable import StimulusAnalysis

/// The defects a trial of the stimulus analyses found, each on data with a known answer.
@Suite struct TrialFixTests {
    /// Gaze every step from `from` to `to` seconds of stimulus time (negative: before the onset) at
    /// the stimulus pixel `pixelAt(t)`.
    static func gaze(from: Double, to: Double, _ pixelAt: (Double) -> Point2) -> [GazeSample] {
        (Int(from / StimulusTestData.step)..<Int(to / StimulusTestData.step)).map { index in
            let t = Double(index) * StimulusTestData.step, point = StimulusTestData.screen(pixelAt(t))
            return GazeSample(timestampSeconds: StimulusTestData.begin + t, x: point.x, y: point.y, orientation: 3)
        }
    }

    @Test func aFixationUnderWayAtOnsetIsTrimmedAtTheOnsetAndCounted() throws {
        // Given a viewer fixating the area from −1.1 s to +3.2 s, elsewhere until 5.7 s, then on it again until 8 s.
        let onArea = { (t: Double) in t >= -1.1 && t < 3.2 || t >= 5.7 }
        let gaze = Self.gaze(from: -2, to: 8) { onArea($0) ? Point2(40, 30) : Point2(200, 100) }
        let viewing = try StimulusTestData.viewing("s", seconds: 8, gaze: gaze)
        let area = AreaOfInterest(name: "logo", shape: .rect(x: 20, y: 10, width: 40, height: 40))
        let metrics = AOIAnalysis.metrics(viewing, areas: [area])[0]
        // Then the fixation under way at onset counts from 0 s: the time to first fixation is 0, not 5.7 s.
        #expect(metrics.timeToFirstFixationSeconds == 0)
        #expect(metrics.timeToFirstVisitSeconds == 0)
        // Its duration is its part after the onset: to its last sample before 3.2 s.
        let lastBefore = (3.2 / StimulusTestData.step).rounded(.down) * StimulusTestData.step
        #expect(abs((metrics.firstFixationSeconds ?? -1) - lastBefore) < 1e-9, "\(String(describing: metrics.firstFixationSeconds))")
        #expect(metrics.fixationCount == 2 && metrics.visits == 2)
        #expect(viewing.fixations.first?.startSeconds == 0)
    }

    @Test func dwellIsClippedAtTheStimulusEnd() throws {
        // Given gaze on the area for the whole of a stimulus of 3.99 s (its last sample, at 3.96875 s,
        // would stand for 1/32 s: to 4.0 s).
        let gaze = StimulusTestData.gaze(seconds: 4) { _ in Point2(40, 30) }
        let viewing = try StimulusTestData.viewing("s", seconds: 3.99, gaze: gaze)
        let metrics = AOIAnalysis.metrics(viewing, areas: [AreaOfInterest(name: "a", shape: .rect(x: 20, y: 10, width: 40, height: 40))])[0]
        // Then the dwell is the stimulus's 3.99 s, not more.
        #expect(abs(metrics.dwellSeconds - 3.99) < 1e-9, "\(metrics.dwellSeconds)")
        #expect(viewing.samples.map { $0.seconds + $0.durationSeconds }.max()! <= 3.99 + 1e-12)
    }

    @Test func anAreaWithTwoShapesOrAnUnknownKeyIsRefusedWithItsPath() {
        func problem(_ text: String) -> String {
            do { _ = try AOIDocument.areas(Array(text.utf8), source: "study/aois.json"); return "" } catch { return "\(error)" }
        }
        #expect(problem(#"[{"name": "b", "rect": [0, 0, 1, 1], "ellipse": [5, 5, 1, 1]}]"#)
            == "cannot read the areas of interest in study/aois.json: area \"b\": it has 2 shapes (\"rect\", \"ellipse\"): give one")
        #expect(problem(#"[{"name": "b", "rectangle": [0, 0, 1, 1]}]"#)
            == "cannot read the areas of interest in study/aois.json: area \"b\": unknown key \"rectangle\" (known: name, rect, ellipse, polygon, keyframes)")
        #expect(problem(#"[{"name": "b", "keyframes": [{"t": 0, "rect": [0, 0, 1, 1]}, {"t": 1, "rect": [0, 0, 1, 1], "time": 1}]}]"#)
            == "cannot read the areas of interest in study/aois.json: area \"b\": keyframe 2: unknown key \"time\" (known: t, rect, ellipse, polygon)")
        #expect(problem(#"[{"name": "b", "rect": [0, 0, 1, 1], "keyframes": [{"t": 0, "rect": [0, 0, 1, 1]}]}]"#)
            == "cannot read the areas of interest in study/aois.json: area \"b\": it has both \"keyframes\" and a shape: give one")
    }

    @Test func anAreaOutsideTheStimulusOrItsDurationIsWarnedAboutOrRefused() throws {
        let half = AreaOfInterest(name: "half", shape: .rect(x: 300, y: 0, width: 40, height: 10))
        let inside = AreaOfInterest(name: "inside", shape: .rect(x: 0, y: 0, width: 40, height: 10))
        let late = try AreaOfInterest(name: "late", keyframes: [.init(seconds: 4, shape: .rect(x: 0, y: 0, width: 4, height: 4)),
                                                                 .init(seconds: 8, shape: .rect(x: 0, y: 0, width: 4, height: 4))])
        let warnings = try AOIFit.check([half, inside, late], widthPixels: 320, heightPixels: 180, durationSeconds: 6, source: "a.json")
        #expect(warnings == [.areaPartlyOutsideStimulus(area: "half", insideShare: 0.5, widthPixels: 320, heightPixels: 180),
                             .areaPartlyOutsideDuration(area: "late", firstSeconds: 4, lastSeconds: 8, durationSeconds: 6)])
        #expect(warnings[0].description == "area \"half\" lies 50 % outside the stimulus's 320×180 pixels; only its part on the stimulus can hold gaze")
        // An image has no duration to check keyframes against.
        #expect(try AOIFit.check([late], widthPixels: 320, heightPixels: 180, durationSeconds: nil, source: "a.json").isEmpty)
        let away = AreaOfInterest(name: "away", shape: .ellipse(centreX: 500, centreY: 90, radiusX: 10, radiusY: 10))
        #expect(throws: StimulusError.badAOIs(source: "a.json", reason: "area \"away\" lies wholly outside the stimulus's 320×180 pixels (x right, y down from its top-left)")) {
            try AOIFit.check([away], widthPixels: 320, heightPixels: 180, durationSeconds: 6, source: "a.json")
        }
        #expect(throws: StimulusError.badAOIs(source: "a.json", reason: "area \"late\" is keyframed from 4 s to 8 s, wholly outside the stimulus's 3 s")) {
            try AOIFit.check([late], widthPixels: 320, heightPixels: 180, durationSeconds: 3, source: "a.json")
        }
        // A keyframed area crossing the stimulus between keyframes each outside it is kept.
        let crossing = try AreaOfInterest(name: "crossing", keyframes: [.init(seconds: 0, shape: .rect(x: -50, y: 0, width: 10, height: 10)),
                                                                         .init(seconds: 6, shape: .rect(x: 400, y: 0, width: 10, height: 10))])
        #expect(try AOIFit.check([crossing], widthPixels: 320, heightPixels: 180, durationSeconds: 6, source: "a.json").count == 1)
    }

    @Test func noHighlightSaysWhy() throws {
        // Given one neutral viewer (happy never dominates).
        let gaze = StimulusTestData.gaze(seconds: 4) { _ in Point2(40, 30) }
        let viewing = try StimulusTestData.viewing("s", seconds: 4, gaze: gaze, expressions: StimulusTestData.expressions(seconds: 4) { _ in false })
        let placement = try StimulusTestData.placement()
        #expect(try HighlightFinder.highlights([viewing], placement: placement).isEmpty)
        #expect(HighlightFinder.whyNone([viewing], placement: placement)
            == "no highlight: the one participant with expression data was never in a run of happy at once for 2 s (the longest such time was 0.0 s)")
        let faceless = try StimulusTestData.viewing("s", seconds: 4, gaze: gaze)
        #expect(HighlightFinder.whyNone([faceless], placement: placement)
            == "no highlight: none of the 1 sessions has expression data while the stimulus was shown")
    }
}
