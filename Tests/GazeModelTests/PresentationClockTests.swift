import Testing
import GazeModel

/// The one rule that places a session time in a stimulus's own seconds.
@Suite("Presentation clock")
struct PresentationClockTests {
    /// A 10-second video shown at t = 100: samples every second while it plays 0 → 3, paused
    /// 103…105 at 3 (a sample during the pause), plays to 4, a seek at 106 from 4 to 1, stalled
    /// 107.5…108 at 2.5, plays on, cut short at 110.
    static let presentation = Presentation(
        index: 0, label: "clip", kind: .video, durationSeconds: 10, frameRate: 30, onsetSeconds: 100, offsetSeconds: 110,
        events: [PresentationEvent(kind: .pause, timestampSeconds: 103, stimulusSeconds: 3),
                 PresentationEvent(kind: .resume, timestampSeconds: 105, stimulusSeconds: 3),
                 PresentationEvent(kind: .seek, timestampSeconds: 106, stimulusSeconds: 1, fromStimulusSeconds: 4),
                 PresentationEvent(kind: .stall, timestampSeconds: 107.5, stimulusSeconds: 2.5),
                 PresentationEvent(kind: .stallEnd, timestampSeconds: 108, stimulusSeconds: 2.5)],
        playback: [PlaybackSample(timestampSeconds: 100.02, stimulusSeconds: 0), PlaybackSample(timestampSeconds: 101, stimulusSeconds: 0.98),
                   PlaybackSample(timestampSeconds: 102, stimulusSeconds: 2), PlaybackSample(timestampSeconds: 104, stimulusSeconds: 3),
                   // Taken at the seek's instant, still showing the old picture: the seek's landing wins.
                   PlaybackSample(timestampSeconds: 106, stimulusSeconds: 4), PlaybackSample(timestampSeconds: 109, stimulusSeconds: 3.5)],
        ending: .cutShort(reason: "stopped"))

    @Test("interpolated at rate 1 while playing, held while paused or stalled, jumping at a seek; nil outside onset…offset")
    func positions() throws {
        let p = Self.presentation
        let expected: [(Double, Double?)] = [
            (99.99, nil), (100, 0), (100.01, 0.01), (100.5, 0.48), (101.5, 1.48), (102.5, 2.5),
            (103, 3), (104, 3), (104.9, 3), (105, 3), (105.5, 3.5), (106, 1), (107, 2), (107.5, 2.5), (107.9, 2.5),
            (108, 2.5), (108.5, 3), (109, 3.5), (109.99, 4.49), (110, nil), (111, nil),
        ]
        for (t, seconds) in expected {
            let got = p.stimulusSeconds(at: t)
            #expect((got == nil) == (seconds == nil), "at \(t): \(String(describing: got))")
            if let got, let seconds { #expect(abs(got - seconds) < 1e-9, "at \(t): \(got), expected \(seconds)") }
        }
    }

    @Test("the segments readers outside Swift evaluate: one per playing or held stretch, starting at the onset, the seek's landing winning")
    func segments() {
        let clock = Self.presentation.clock
        let pieces = clock.segments.map { [$0.startSeconds, $0.stimulusSeconds, $0.rate] }
        #expect(pieces == [[100, 0, 1], [100.02, 0, 1], [101, 0.98, 1], [102, 2, 1], [103, 3, 0], [104, 3, 0], [105, 3, 1],
                           [106, 1, 1], [107.5, 2.5, 0], [108, 2.5, 1], [109, 3.5, 1]], "\(pieces)")
        #expect(clock.onsetSeconds == 100 && clock.offsetSeconds == 110 && clock.limitSeconds == 10)
        // Evaluated by hand at every hundredth of a second, a segment gives what stimulusSeconds(at:) gives.
        for step in 9990...11010 {
            let t = Double(step) / 100
            let segment = clock.segments.last { $0.startSeconds <= t }
            let byHand = clock.contains(t) ? segment.map { min(max($0.stimulusSeconds + $0.rate * (t - $0.startSeconds), 0), 10) } : nil
            #expect(byHand == clock.stimulusSeconds(at: t), "at \(t)")
        }
        // Anchors before the onset: only the last of them counts, from the onset on; one at or past the offset has none.
        let early = Presentation(index: 0, label: "x", kind: .video, durationSeconds: 10, onsetSeconds: 10, offsetSeconds: 20,
                                 playback: [PlaybackSample(timestampSeconds: 9, stimulusSeconds: 5), PlaybackSample(timestampSeconds: 9.5, stimulusSeconds: 2),
                                            PlaybackSample(timestampSeconds: 20, stimulusSeconds: 9)])
        #expect(early.clock.segments.map { [$0.startSeconds, $0.stimulusSeconds, $0.rate] } == [[10, 2, 1]])
        #expect(early.stimulusSeconds(at: 12) == 4)
    }

    @Test("never past the duration, never below 0; still shown without an offset; images run at rate 1")
    func bounds() {
        var p = Presentation(index: 0, label: "still", kind: .image, durationSeconds: 5, onsetSeconds: 10)
        #expect(p.stimulusSeconds(at: 12) == 2)
        #expect(p.stimulusSeconds(at: 1000) == 5)
        p.playback = [PlaybackSample(timestampSeconds: 11, stimulusSeconds: -0.5)]
        #expect(p.stimulusSeconds(at: 11.25) == 0)
    }

    @Test("showing(at:) picks the presentation on screen; between items, none")
    func showing() {
        let a = Presentation(index: 0, label: "a", kind: .image, durationSeconds: 2, onsetSeconds: 10, offsetSeconds: 12)
        let b = Presentation(index: 1, label: "b", kind: .blank, durationSeconds: 1, onsetSeconds: 12.5, offsetSeconds: 13.5)
        let list = [a, b]
        #expect(list.showing(at: 9.9) == nil)
        #expect(list.showing(at: 10)?.label == "a")
        #expect(list.showing(at: 12) == nil)
        #expect(list.showing(at: 13)?.label == "b")
        #expect(list.showing(at: 13.5) == nil)
    }
}
