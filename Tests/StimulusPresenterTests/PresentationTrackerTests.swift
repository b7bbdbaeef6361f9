import ContentDigest
import Foundation
import GazeModel
@testable import StimulusPresenter
import Testing

/// The tracker fed mpv's own lines (as its IPC sends them), each with an arrival time.
@Suite struct PresentationTrackerTests {
    static let item = PresentationItem(kind: .video, path: "/data/clip.mp4", label: "clip", seconds: nil)

    static func feed(_ lines: [(Double, String)], pointsPerPixel: (x: Double, y: Double) = (1, 1)) -> PresentationTracker {
        var tracker = PresentationTracker(index: 2, item: item, fileFacts: FileDigest(byteSize: 1234, sha256: "ab"), pointsPerPixel: pointsPerPixel)
        for (time, line) in lines {
            guard let message = PlayerMessage.parse(Array(line.utf8)) else {
                Issue.record("not parsed: \(line)")
                continue
            }
            tracker.observe(message, at: time)
        }
        return tracker
    }

    static let standbyThenLoad: [(Double, String)] = [
        (0.9, #"{"event":"end-file","reason":"stop","playlist_entry_id":1}"#),
        (1.0, #"{"event":"start-file","playlist_entry_id":2}"#),
        (1.01, #"{"event":"file-loaded"}"#),
        (1.02, #"{"event":"property-change","id":1,"name":"time-pos","data":0.000000}"#),
        (1.03, #"{"event":"property-change","id":7,"name":"duration","data":8.000000}"#),
        (1.03, #"{"event":"property-change","id":8,"name":"container-fps","data":30.000000}"#),
        (1.03, #"{"event":"property-change","id":9,"name":"width","data":480}"#),
        (1.03, #"{"event":"property-change","id":10,"name":"height","data":360}"#),
        (1.05, #"{"event":"playback-restart"}"#),
        (1.06, #"{"event":"property-change","id":6,"name":"osd-dimensions","data":{"w":1280,"h":720,"par":1.0,"aspect":1.333,"mt":0,"mb":0,"ml":160,"mr":160}}"#),
        (1.08, #"{"event":"property-change","id":1,"name":"time-pos","data":0.033333}"#),
    ]

    @Test("the end of the screen it replaced is ignored; the onset is the first playback restart; the rectangle is the window less its margins")
    func onsetAndRectangle() {
        let tracker = Self.feed(Self.standbyThenLoad)
        let shown = tracker.presentation
        #expect(!tracker.ended && tracker.hasOnset)
        #expect(shown.onsetSeconds == 1.05 && shown.offsetSeconds == nil && shown.ending == nil)
        #expect(shown.index == 2 && shown.label == "clip" && shown.fileName == "clip.mp4" && shown.byteSize == 1234 && shown.sha256 == "ab")
        #expect(shown.durationSeconds == 8 && shown.frameRate == 30 && shown.widthPixels == 480 && shown.heightPixels == 360)
        #expect(shown.rect == PresentationRect(x: 160, y: 0, width: 960, height: 720))
        #expect(shown.playback == [PlaybackSample(timestampSeconds: 1.05, stimulusSeconds: 0),
                                   PlaybackSample(timestampSeconds: 1.08, stimulusSeconds: 0.033333)])
    }

    @Test("display pixels are scaled to the session's screen points")
    func pointsPerPixel() {
        let shown = Self.feed(Self.standbyThenLoad, pointsPerPixel: (0.5, 0.75)).presentation
        #expect(shown.rect == PresentationRect(x: 80, y: 0, width: 480, height: 540))
    }

    @Test("pause, a seek while paused (landing told before or after its restart), resume, a stall and the end are timed events")
    func events() {
        let lines = Self.standbyThenLoad + [
            (2.0, #"{"event":"property-change","id":1,"name":"time-pos","data":1.0}"#),
            (2.1, #"{"event":"property-change","id":2,"name":"pause","data":true}"#),
            (2.5, #"{"event":"seek"}"#),
            (2.52, #"{"event":"property-change","id":1,"name":"time-pos","data":0.5}"#),
            (2.55, #"{"event":"playback-restart"}"#),
            (3.0, #"{"event":"property-change","id":2,"name":"pause","data":false}"#),
            (3.5, #"{"event":"seek"}"#),
            (3.55, #"{"event":"playback-restart"}"#),
            (3.56, #"{"event":"property-change","id":1,"name":"time-pos","data":6.0}"#),
            (4.0, #"{"event":"property-change","id":5,"name":"paused-for-cache","data":true}"#),
            (4.4, #"{"event":"property-change","id":5,"name":"paused-for-cache","data":false}"#),
            (5.0, #"{"event":"end-file","reason":"eof","playlist_entry_id":2}"#),
            (5.1, #"{"event":"property-change","id":1,"name":"time-pos"}"#),
        ]
        let tracker = Self.feed(lines)
        let shown = tracker.presentation
        #expect(tracker.ended && shown.offsetSeconds == 5.0 && shown.ending == .finished)
        #expect(shown.events == [
            PresentationEvent(kind: .pause, timestampSeconds: 2.1, stimulusSeconds: 1.0),
            PresentationEvent(kind: .seek, timestampSeconds: 2.55, stimulusSeconds: 0.5, fromStimulusSeconds: 1.0),
            PresentationEvent(kind: .resume, timestampSeconds: 3.0, stimulusSeconds: 0.5),
            PresentationEvent(kind: .seek, timestampSeconds: 3.55, stimulusSeconds: 6.0, fromStimulusSeconds: 0.5),
            PresentationEvent(kind: .stall, timestampSeconds: 4.0, stimulusSeconds: 6.0),
            PresentationEvent(kind: .stallEnd, timestampSeconds: 4.4, stimulusSeconds: 6.0),
        ])
        #expect(shown.playback.map(\.stimulusSeconds) == [0, 0.033333, 1.0, 0.5, 6.0])
    }

    @Test("Esc or q, a stop and an error end a presentation cut short with the reason; an item never shown has its onset at its end")
    func endings() {
        #expect(PresentationTracker.ending(reason: "quit") == .cutShort(reason: "the participant pressed Esc or q in the player"))
        #expect(PresentationTracker.ending(reason: "stop") == .cutShort(reason: "the recording was stopped"))
        #expect(PresentationTracker.ending(reason: "error") == .cutShort(reason: "the player could not play it"))
        var tracker = Self.feed([(1.0, #"{"event":"start-file"}"#)])
        tracker.end(at: 1.5, ending: .cutShort(reason: "the stimulus player died: it was killed by signal 9"))
        #expect(tracker.presentation.onsetSeconds == 1.5 && tracker.presentation.offsetSeconds == 1.5)
        #expect(tracker.presentation.ending == .cutShort(reason: "the stimulus player died: it was killed by signal 9"))
    }
}
