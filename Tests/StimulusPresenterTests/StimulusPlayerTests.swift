import ContentDigest
import Foundation
import GazeModel
import JSONStream
@testable import StimulusPresenter
import Testing
import TestSupport

/// The presenter driving the real mpv on an Xvfb display of its own: what it records against what
/// the player did and what the screen showed.
@Suite(.serialized) struct StimulusPlayerTests {
    /// A 4 s 480x360 (4:3) video at 30 fps with a 2 px red border, so on a 1280x720 screen it is
    /// pillarboxed to 960x720 at x = 160 and its edges can be found on a screenshot.
    static func stimulus(in folder: TemporaryFolder) throws -> String {
        let path = folder.path("stimulus.mp4")
        let result = try Binary.runProcess("/usr/bin/ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=480x360:r=30:d=4",
            "-vf", "drawbox=x=0:y=0:w=iw:h=ih:color=red:t=2", "-pix_fmt", "yuv420p", path,
        ])
        #expect(result.status == 0, "ffmpeg: \(result.stderr)")
        return path
    }

    @Test("a display that cannot be opened is refused: the player may not fall back to a window on no screen (SDL's off-screen one)")
    func unopenableDisplay() throws {
        if let reason = VirtualDisplay.missingReason {
            print("skipped: \(reason)")
            return
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.stimulus(in: folder)
        var settings = PresenterSettings(items: try PresentationItem.items(arguments: [path], imageSeconds: 5), screenPoints: (1280, 720))
        settings.display = VirtualDisplay.unusedName()
        do {
            let presenter = try StimulusPresenter.launch(settings, clock: { Date().timeIntervalSince1970 })
            presenter.stop()
            let size = presenter.displayPixels.map { "\($0.width)x\($0.height)" } ?? "no size"
            let started = "the player started on \(settings.display!) with the video output \(presenter.videoOutput ?? "none") and a display of \(size)"
            Issue.record(Comment(rawValue: started))
        } catch let PresenterError.playerDidNotStart(reason) {
            #expect(reason.hasPrefix("it opened no window on the display \(settings.display!)"), "\(reason)")
        }
        #expect(throws: PresenterError.displayUnavailable(display: settings.display!)) {
            try PresenterChecks.checkDisplay(environment: ["DISPLAY": settings.display!])
        }
    }

    @Test("a paused and sought video is recorded with its onset, rectangle, events and playback; the screen shows it at that rectangle")
    func pauseSeekAndRectangle() throws {
        if let reason = VirtualDisplay.missingReason {
            print("skipped: \(reason)")
            return
        }
        let display = try VirtualDisplay(width: 1280, height: 720)
        defer { display.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.stimulus(in: folder)
        let items = try PresentationItem.items(arguments: [path], imageSeconds: 5)
        var settings = PresenterSettings(items: items, screenPoints: (1280, 720))
        settings.display = display.name
        let launchedAt = Date().timeIntervalSince1970
        let presenter = try StimulusPresenter.launch(settings, clock: { Date().timeIntervalSince1970 })
        #expect(presenter.displayPixels?.width == 1280 && presenter.displayPixels?.height == 720)
        // Given a second client on the player's socket, as another program would drive it.
        let control = try PlayerConnection(socketPath: presenter.socketPath, timeoutSeconds: 5, alive: { true })
        presenter.play()
        // Paused once the player has played 0.8 s, however long a loaded machine took to start it.
        let playing = Date().addingTimeInterval(10)
        while Date() < playing, (presenter.takeUpdates().last?.playback.last?.stimulusSeconds ?? 0) < 0.8 { usleep(20_000) }
        control.send([.string("set_property"), .string("pause"), .bool(true)])
        usleep(500_000)
        let screen = try display.grab(width: 1280, height: 720)
        control.send([.string("seek"), .number(0.5), .string("absolute")])
        usleep(500_000)
        control.send([.string("set_property"), .string("pause"), .bool(false)])
        let deadline = Date().addingTimeInterval(15)
        while presenter.outcome == nil && Date() < deadline { usleep(50_000) }
        #expect(presenter.outcome == .allShown)
        let updates = presenter.takeUpdates()
        let shown = try #require(updates.last)
        let digest = try FileDigest(path: path)
        // Then the presentation is the file, shown whole, where the player put it.
        #expect(shown.index == 0 && shown.kind == .video && shown.fileName == "stimulus.mp4" && shown.label == "stimulus")
        #expect(shown.sha256 == digest.sha256 && shown.byteSize == digest.byteSize)
        #expect(shown.durationSeconds == 4 && shown.frameRate == 30 && shown.widthPixels == 480 && shown.heightPixels == 360)
        #expect(shown.rect == PresentationRect(x: 160, y: 0, width: 960, height: 720))
        #expect(shown.ending == .finished)
        #expect(shown.onsetSeconds > launchedAt)
        let offset = try #require(shown.offsetSeconds)
        let kinds = shown.events.map(\.kind)
        #expect(kinds == [.pause, .seek, .resume], "events: \(shown.events)")
        if kinds == [.pause, .seek, .resume] {
            let pause = shown.events[0], seek = shown.events[1], resume = shown.events[2]
            #expect(pause.stimulusSeconds > 0.7 && pause.stimulusSeconds < 2, "pause \(pause)")
            // An exact seek lands on the frame at 0.5 s (mpv may report the next one, a frame later).
            #expect(seek.stimulusSeconds >= 0.5 && seek.stimulusSeconds < 0.5 + 1.5 / 30, "seek \(seek)")
            #expect(abs(seek.fromStimulusSeconds! - pause.stimulusSeconds) < 0.05)
            #expect(resume.stimulusSeconds == seek.stimulusSeconds)
            #expect(pause.timestampSeconds < seek.timestampSeconds && seek.timestampSeconds < resume.timestampSeconds)
            // Shown for no less than its played stretches and the pause: 0 → pause, the pause, 0.5 → 4.
            let played = pause.stimulusSeconds + (resume.timestampSeconds - pause.timestampSeconds) + (4 - seek.stimulusSeconds)
            #expect(offset - shown.onsetSeconds > played - 0.1)
            // The playback clock runs forward at one stimulus second a second after the resume, sampled at
            // least ten times a second however many frames a loaded machine drops (one sample per frame shown).
            let after = shown.playback.filter { $0.timestampSeconds >= resume.timestampSeconds }
            #expect(after.count >= 30, "\(after.count) samples after the resume")
            #expect(zip(after, after.dropFirst()).allSatisfy { $0.stimulusSeconds <= $1.stimulusSeconds })
            if let first = after.first, let last = after.last, last.timestampSeconds > first.timestampSeconds + 2 {
                let rate = (last.stimulusSeconds - first.stimulusSeconds) / (last.timestampSeconds - first.timestampSeconds)
                #expect(abs(rate - 1) < 0.15, "\(rate) stimulus seconds a second")
            } else {
                Issue.record("the samples after the resume span under 2 s: \(after)")
            }
        }
        #expect(shown.playback.map(\.stimulusSeconds).max()! > 3.9)
        if let rect = shown.rect {
            let problems = VirtualDisplay.edgeProblems(screen, screenWidth: 1280, screenHeight: 720, x: rect.x, y: rect.y,
                                                       width: rect.width, height: rect.height)
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    @Test("a seek before the start and one past the end are stored where the player landed (0, the last frame), not at the requested target")
    func seekBeyondTheStimulus() throws {
        if let reason = VirtualDisplay.missingReason {
            print("skipped: \(reason)")
            return
        }
        let display = try VirtualDisplay(width: 1280, height: 720)
        defer { display.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.stimulus(in: folder)
        var settings = PresenterSettings(items: try PresentationItem.items(arguments: [path], imageSeconds: 5), screenPoints: (1280, 720))
        settings.display = display.name
        let presenter = try StimulusPresenter.launch(settings, clock: { Date().timeIntervalSince1970 })
        let control = try PlayerConnection(socketPath: presenter.socketPath, timeoutSeconds: 5, alive: { true })
        presenter.play()
        // When the test seeks 3 s back at about 1 s (a target of about -2 s), then 10 s on at about 1 s
        // (about 11 s, past the 4 s stimulus's end).
        func waitFor(_ condition: (Presentation) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(30)
            var latest: Presentation?
            while Date() < deadline && presenter.outcome == nil {
                latest = presenter.takeUpdates().last ?? latest
                if let latest, condition(latest) { return true }
                usleep(20_000)
            }
            return false
        }
        try #require(waitFor { ($0.playback.last?.stimulusSeconds ?? 0) >= 1 }, "the stimulus never reached 1 s")
        control.send([.string("seek"), .number(-3), .string("relative")])
        try #require(waitFor { $0.events.contains { $0.kind == .seek } && ($0.playback.last?.stimulusSeconds ?? 0) >= 1 },
                     "the stimulus never played on to 1 s after the seek back")
        control.send([.string("seek"), .number(10), .string("relative")])
        let deadline = Date().addingTimeInterval(15)
        while presenter.outcome == nil && Date() < deadline { usleep(50_000) }
        let shown = try #require(presenter.takeUpdates().last)
        // Then each seek is stored where the player landed: within the stimulus, as are its playback samples.
        let seeks = shown.events.filter { $0.kind == .seek }
        #expect(seeks.count == 2, "\(shown.events)")
        if seeks.count == 2 {
            #expect(seeks[0].stimulusSeconds >= 0 && seeks[0].stimulusSeconds < 0.1, "the seek back: \(seeks[0])")
            #expect(seeks[1].stimulusSeconds > 3.8 && seeks[1].stimulusSeconds <= 4, "the seek past the end: \(seeks[1])")
        }
        #expect(shown.playback.allSatisfy { $0.stimulusSeconds >= 0 && $0.stimulusSeconds <= 4 },
                "\(shown.playback.map(\.stimulusSeconds).filter { $0 < 0 || $0 > 4 })")
    }

    @Test("a playlist's image, blank and video are shown one after another, each for its seconds, and each recorded whole")
    func playlistInTurn() throws {
        if let reason = VirtualDisplay.missingReason {
            print("skipped: \(reason)")
            return
        }
        let display = try VirtualDisplay(width: 1280, height: 720)
        defer { display.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let image = folder.path("face.png"), video = folder.path("clip.mp4")
        for (arguments, path) in [(["-f", "lavfi", "-i", "color=c=red:s=400x300", "-frames:v", "1"], image),
                                  (["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1", "-pix_fmt", "yuv420p"], video)] {
            let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error"] + arguments + [path])
            try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        }
        let list = folder.path("study.txt")
        try "face.png 1 the face\nblank 1\nclip.mp4\n".write(toFile: list, atomically: true, encoding: .utf8)
        var settings = PresenterSettings(items: try PresentationItem.items(arguments: [list], imageSeconds: 5), screenPoints: (1280, 720))
        settings.display = display.name
        let presenter = try StimulusPresenter.launch(settings, clock: { Date().timeIntervalSince1970 })
        presenter.play()
        let deadline = Date().addingTimeInterval(30)
        var shown: [Presentation] = []
        while presenter.outcome == nil && Date() < deadline {
            shown += presenter.takeUpdates()
            usleep(50_000)
        }
        shown += presenter.takeUpdates()
        #expect(presenter.outcome == .allShown)
        // The last snapshot of each presentation is the ended one.
        let ended = Dictionary(shown.map { ($0.index, $0) }, uniquingKeysWith: { $1 }).sorted { $0.key < $1.key }.map(\.value)
        #expect(ended.map(\.kind) == [.image, .blank, .video])
        #expect(ended.map(\.label) == ["the face", "blank", "clip"])
        #expect(ended.allSatisfy { $0.ending == .finished })
        #expect(ended[0].rect == PresentationRect(x: 160, y: 0, width: 960, height: 720) && ended[1].rect == nil)
        #expect(ended[0].durationSeconds == 1 && ended[1].durationSeconds == 1 && ended[2].frameRate == 25)
        for (before, after) in zip(ended, ended.dropFirst()) {
            #expect(before.offsetSeconds! <= after.onsetSeconds)
        }
        // Each shown no shorter than its second (a player cannot show an item faster than its clock).
        #expect(ended.allSatisfy { $0.offsetSeconds! - $0.onsetSeconds > 0.9 })
    }
}
