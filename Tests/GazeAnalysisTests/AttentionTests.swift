import GazeAnalysis
import GazeModel
import Testing

@Suite("Attention figures per session and per marker interval")
struct AttentionTests {
    /// 10 s at 10 fps: face missing from 2.0 s to 2.9 s, eyes shut (openness 0.1) from 6.0 s to 6.4 s,
    /// gaze off the 100 × 100 screen from 4.0 s to 4.9 s; markers A at 1.0 s, B at 5.0 s.
    static func report() -> AttentionReport? {
        var accumulator = AttentionAccumulator(
            markers: [Marker(timestampSeconds: 105, label: "B"), Marker(timestampSeconds: 101, label: "A")],
            screenWidth: 100, screenHeight: 100)
        for index in 0..<100 {
            let time = 100 + Double(index) / 10
            let missing = (20..<30).contains(index)
            let openness = (60..<65).contains(index) ? 0.1 : 0.9
            accumulator.add(FrameMeasurement(timestampSeconds: time, trackingState: missing ? .missing : .normal,
                                             confidence: 1, opennessLeft: missing ? nil : openness,
                                             opennessRight: missing ? nil : openness))
        }
        for index in 0..<100 where !(20..<30).contains(index) {
            let x = (40..<50).contains(index) ? 100.5 : 50
            accumulator.add(GazeSample(timestampSeconds: 100 + Double(index) / 10, x: x, y: 100, orientation: 3))
        }
        accumulator.add(BlinkEvent(startSeconds: 106, endSeconds: 106.4, eyes: .both, kind: .blink, minimumOpenness: 0.1))
        return accumulator.report(endSeconds: 110)
    }

    @Test("the session's shares of face and of gaze on the screen, edges included")
    func session() throws {
        let report = try #require(Self.report())
        #expect(report.session.frames == 100)
        #expect(report.session.faceShare == 0.9)
        #expect(report.session.onScreenShare == 0.8)
        #expect(report.session.eyes?.blinks == 1)
        #expect(report.session.eyes?.perclos == (5.0 / 90).rounded(toDecimals: 4))
    }

    @Test("each marker's interval runs until the next, the last until the session's end, whatever the order given")
    func intervals() throws {
        let report = try #require(Self.report())
        #expect(report.intervals.map(\.label) == ["A", "B"])
        #expect(report.intervals.map(\.start) == [101, 105])
        #expect(report.intervals.map(\.end) == [105, 110])
        let a = report.intervals[0].figures, b = report.intervals[1].figures
        // A: 1.0 … 4.9 s, 40 frames, 10 without a face and 10 with gaze off the screen.
        #expect(a.frames == 40 && a.faceShare == 0.75 && a.onScreenShare == 0.5)
        #expect(a.eyes?.blinks == 0)
        // B: 5.0 … 9.9 s, 50 frames, all on the screen, the blink and its closed frames.
        #expect(b.frames == 50 && b.faceShare == 1 && b.onScreenShare == 1)
        #expect(b.eyes?.blinks == 1 && b.eyes?.perclos == 0.1)
    }

    @Test("without gaze there is no on-screen share; without frames no report")
    func withoutGaze() {
        var accumulator = AttentionAccumulator(markers: [], screenWidth: 100, screenHeight: 100)
        #expect(accumulator.report() == nil)
        accumulator.add(FrameMeasurement(timestampSeconds: 1, trackingState: .normal, confidence: 1))
        #expect(accumulator.report()?.session.onScreenShare == nil)
        #expect(accumulator.report()?.intervals.isEmpty == true)
    }
}
