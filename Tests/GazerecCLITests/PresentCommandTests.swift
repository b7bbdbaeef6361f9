import Foundation
import JSONStream
@testable import StimulusPresenter
import Testing
import TestSupport

/// `gazerec start --present` end to end, on an Xvfb display of its own with the real mpv: the shared
/// clip recorded as the camera while a generated stimulus is shown, paused and sought back through
/// the player's IPC socket by the test, as another program would.
@Suite("gazerec start --present", .serialized)
struct PresentCommandTests {
    static let model = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static var missing: String? {
        if let reason = VirtualDisplay.missingReason { return reason }
        if !Fixtures.available { return "../shared/fixtures is absent" }
        return FileManager.default.fileExists(atPath: model) ? nil : "the dlib model (libdlib-data) is absent"
    }

    static func number(_ value: JSONValue?) -> Double? { if case .number(let n)? = value { n } else { nil } }
    static func text(_ value: JSONValue?) -> String? { if case .string(let s)? = value { s } else { nil } }

    /// The recorder started in the background with the display, store and temporary folder given.
    static func startRecorder(_ arguments: [String], environment: [String: String], folder: TemporaryFolder) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.gazerec)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        FileManager.default.createFile(atPath: folder.path("stdout"), contents: nil)
        FileManager.default.createFile(atPath: folder.path("stderr"), contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.path("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.path("stderr")))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// The player's socket under `temporary` once the recorder has opened it.
    static func playerSocket(in temporary: String, while process: Process) -> String? {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && process.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
            if let folder = names.first(where: { $0.hasPrefix("gazerec-present-") }),
               FileManager.default.fileExists(atPath: temporary + "/" + folder + "/mpv.sock") {
                return temporary + "/" + folder + "/mpv.sock"
            }
            usleep(50_000)
        }
        return nil
    }

    /// The player's temporary folders left in `temporary`.
    static func playerFolders(in temporary: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []).filter { $0.hasPrefix("gazerec-present-") }
    }

    /// The player's playback position as its IPC reports it, read on a thread of its own.
    final class PositionWatch: @unchecked Sendable {
        private let lock = NSLock()
        private var latest = -1.0
        var position: Double { lock.withLock { latest } }

        init(_ connection: PlayerConnection) {
            connection.send([.string("observe_property"), .number(99), .string("time-pos")])
            Thread.detachNewThread { [self] in
                connection.read(clock: { 0 }) { message, _ in
                    if case .property("time-pos", .number(let value)?) = message { self.lock.withLock { self.latest = value } }
                }
            }
        }

        func wait(until position: Double, seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while self.position < position && Date() < deadline { usleep(20_000) }
            return self.position >= position
        }
    }

    @Test("a stimulus paused and sought back through the player's IPC is stored with its events, onset, offset and rectangle; the screen shows it there; stimulus timeline needs no --rect")
    func presentPauseSeek() throws {
        if let missing = Self.missing {
            print("skipped: \(missing)")
            return
        }
        let display = try VirtualDisplay(width: 1600, height: 900)
        defer { display.stop() }
        let workspace = try Workspace()
        let folder = workspace.folder
        let temporary = folder.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        // Given a calibration for the script's 1600x900 screen (points = the display's pixels) and a 4 s
        // 640x480 stimulus with a red border: on the 16:9 screen it is pillarboxed to 1200x900 at x = 200.
        let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/calibration-headturns-20s.txt").path
        let calibrated = try workspace.run(["calibrate", "--input", Fixtures.path("video/cap12_headturns_20s.mp4"), "--script", script])
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        let stimulus = folder.path("stimulus.mp4")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=640x480:r=30:d=4",
                                                             "-vf", "drawbox=x=0:y=0:w=iw:h=ih:color=red:t=2", "-pix_fmt", "yuv420p", stimulus])
        try #require(made.status == 0, "\(made.stderr)")
        let output = try TemporaryFolder()
        defer { output.remove() }
        // The shared clip three times over as the camera: the recording ends with the stimulus, long before
        // the clip, however slowly a loaded machine grabs the screen while the stimulus is paused.
        let camera = folder.path("camera.mp4")
        let looped = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-stream_loop", "2", "-i", Fixtures.path("video/cap13_blinks_20s.mp4"),
                                                               "-c", "copy", camera])
        try #require(looped.status == 0, "\(looped.stderr)")
        let recorder = try Self.startRecorder(["start", "--input", camera, "--present", stimulus],
                                              environment: ["DISPLAY": display.name, "TMPDIR": temporary,
                                                            "GAZEREC_DATABASE": workspace.database],
                                              folder: output)
        defer { if recorder.isRunning { recorder.terminate() } }
        // When the test pauses at 1 s, seeks back to 0.5 s and resumes.
        let socket = try #require(Self.playerSocket(in: temporary, while: recorder), "the player's socket never appeared")
        let control = try PlayerConnection(socketPath: socket, timeoutSeconds: 10, alive: { recorder.isRunning })
        let watch = PositionWatch(control)
        try #require(watch.wait(until: 1.0, seconds: 60), "the stimulus never reached 1 s")
        control.send([.string("set_property"), .string("pause"), .bool(true)])
        usleep(500_000)
        control.send([.string("seek"), .number(0.5), .string("absolute")])
        usleep(500_000)
        // The screen while paused.
        let screen = try display.grab(width: 1600, height: 900)
        control.send([.string("set_property"), .string("pause"), .bool(false)])
        recorder.waitUntilExit()
        let stderr = (try? String(contentsOfFile: output.path("stderr"), encoding: .utf8)) ?? ""
        #expect(recorder.terminationStatus == 0, "\(stderr)")
        // No warning about the display: it is the calibration's screen.
        #expect(!stderr.contains("the display is"), "\(stderr)")
        // The player's temporary folder went with it (the recording ended with its last item).
        #expect(Self.playerFolders(in: temporary).isEmpty, "left behind: \(Self.playerFolders(in: temporary))")
        let id = ((try? String(contentsOfFile: output.path("stdout"), encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        try checkStored(workspace, id: id, screen: screen, stimulus: stimulus)
    }

    /// The session's presentation against what the test did, the screenshot against its rectangle,
    /// and the timeline from the presentation alone.
    private func checkStored(_ workspace: Workspace, id: String, screen: [UInt8], stimulus: String) throws {
        let exported = try workspace.run(["export", id])
        try #require(exported.status == 0, "\(exported.stderr)")
        let session = try JSONValue.parse(Array(exported.stdoutData))
        let begin = try #require(Self.number(session["beginTime"])), end = try #require(Self.number(session["endTime"]))
        #expect(session["gazerec"]?["endedBy"] == nil)
        let shown = try #require(session["gazerec"]?["presentations"]?.arrayValue?.first)
        #expect(Self.text(shown["fileName"]) == "stimulus.mp4" && Self.text(shown["ending"]) == "finished", "\(shown["endingReason"] as Any) onset \((Self.number(shown["onset"]) ?? 0) - begin) offset \((Self.number(shown["offset"]) ?? 0) - begin) end \(end - begin) frames \(session["gazerec"]?["recorder"]?["frames"] as Any)")
        let rect = try #require(shown["rect"])
        let (x, y, width, height) = (Self.number(rect["x"]) ?? -1, Self.number(rect["y"]) ?? -1,
                                     Self.number(rect["width"]) ?? -1, Self.number(rect["height"]) ?? -1)
        #expect([x, y, width, height] == [200, 0, 1200, 900])
        let onset = try #require(Self.number(shown["onset"])), offset = try #require(Self.number(shown["offset"]))
        #expect(begin < onset && onset < offset && offset <= end + 0.001)
        let events = shown["events"]?.arrayValue ?? []
        #expect(events.compactMap { Self.text($0["kind"]) } == ["pause", "seek", "resume"], "\(events)")
        if events.count == 3 {
            let paused = Self.number(events[0]["stimulusSeconds"]) ?? -1, landed = Self.number(events[1]["stimulusSeconds"]) ?? -1
            // Paused where the player was when the command reached it: a loaded machine's player may run on
            // for a while after the watch saw 1 s (StimulusPlayerTests allows the same).
            #expect(paused >= 1.0 && paused < 2, "paused at \(paused)")
            #expect(landed >= 0.5 && landed < 0.5 + 1.5 / 30 && Self.number(events[1]["fromStimulusSeconds"]) == paused)
            #expect(Self.number(events[2]["stimulusSeconds"]) == landed)
        }
        let problems = VirtualDisplay.edgeProblems(screen, screenWidth: 1600, screenHeight: 900, x: x, y: y, width: width, height: height)
        #expect(problems.isEmpty, "\(problems)")
        let timeline = try workspace.run(["stimulus", "timeline", id, "--stimulus", stimulus])
        #expect(timeline.status == 0, "\(timeline.stderr)")
        #expect(timeline.stdout.hasPrefix("session,showing,stimulusSeconds,samples,"))
        // Bins are playback seconds: 0 … 3 of the 4 s stimulus, whatever the pause and the seek did to the clock.
        let seconds = timeline.stdout.split(separator: "\n").dropFirst().compactMap { Double($0.split(separator: ",")[2]) }
        #expect(!seconds.isEmpty && seconds.allSatisfy { $0 >= 0 && $0 < 4 })
    }

    /// A 2 s 640x480 stimulus: pillarboxed on a 1600x900 display to 1200x900 at x = 200.
    static func shortStimulus(in workspace: Workspace) throws -> String {
        let stimulus = workspace.folder.path("short.mp4")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x480:r=30:d=2",
                                                             "-pix_fmt", "yuv420p", stimulus])
        try #require(made.status == 0, "\(made.stderr)")
        return stimulus
    }

    /// The session's screen and its first presentation's rectangle, as exported.
    static func screenAndRect(_ workspace: Workspace, id: String) throws -> (screen: [Double], rect: [Double]) {
        let exported = try workspace.run(["export", id])
        try #require(exported.status == 0, "\(exported.stderr)")
        let session = try JSONValue.parse(Array(exported.stdoutData))
        let screen = (session["deviceInfo"]?["screenSize"]?.arrayValue ?? []).map { number($0) ?? -1 }
        let rect = session["gazerec"]?["presentations"]?.arrayValue?.first?["rect"]
        return (screen, ["x", "y", "width", "height"].map { number(rect?[$0]) ?? -1 })
    }

    @Test("an uncalibrated session takes the display's size as its screen, so its rectangle is the display's; recalibrating to another screen scales the rectangles with it")
    func rectanglesFollowTheScreen() throws {
        if let missing = Self.missing {
            print("skipped: \(missing)")
            return
        }
        let display = try VirtualDisplay(width: 1600, height: 900)
        defer { display.stop() }
        let workspace = try Workspace()
        let stimulus = try Self.shortStimulus(in: workspace)
        let clip = Fixtures.path("video/cap13_blinks_20s.mp4")
        let temporary = workspace.folder.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let environment = ["DISPLAY": display.name, "TMPDIR": temporary]
        // A screen the one-screen display does not have is refused before anything is recorded.
        let noScreen = try workspace.run(["start", "--input", clip, "--present", stimulus, "--present-screen", "5"], environment: environment)
        #expect(noScreen.status == 64)
        #expect(noScreen.stderr.hasPrefix("gazerec: error: there is no screen 5 on the X display \(display.name): it has 1 (numbered from 0 to 0)"),
                "\(noScreen.stderr)")
        // Given a recording with no calibration and no --screen on a 1600x900 display.
        let plain = try workspace.run(["start", "--input", clip, "--calibration", "none", "--present", stimulus], environment: environment)
        try #require(plain.status == 0, "\(plain.stderr)")
        let uncalibrated = try Self.screenAndRect(workspace, id: plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(uncalibrated.screen == [1600, 900] && uncalibrated.rect == [200, 0, 1200, 900], "\(uncalibrated)")
        #expect(!plain.stderr.contains("the display is"), "\(plain.stderr)")
        #expect(Self.playerFolders(in: temporary).isEmpty, "left behind: \(Self.playerFolders(in: temporary))")
        // Given one with --screen 1920x1080: the rectangle is in those points, and the warning names the screen given.
        let given = try workspace.run(["start", "--input", clip, "--calibration", "none", "--screen", "1920x1080", "--present", stimulus],
                                      environment: environment)
        try #require(given.status == 0, "\(given.stderr)")
        #expect(given.stderr.contains("the session's screen (the one given) is 1920x1080"), "\(given.stderr)")
        let id = given.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try Self.screenAndRect(workspace, id: id).rect == [240, 0, 1440, 1080])
        // When it is recalibrated with a calibration of the 1600x900 screen.
        let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/calibration-headturns-20s.txt").path
        let calibrated = try workspace.run(["calibrate", "--input", Fixtures.path("video/cap12_headturns_20s.mp4"), "--script", script])
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        let recalibrated = try workspace.run(["recalibrate", id, "--calibration", "latest"])
        try #require(recalibrated.status == 0, "\(recalibrated.stderr)")
        // Then the rectangle is the same part of the display in the new screen's points.
        let after = try Self.screenAndRect(workspace, id: id)
        #expect(after.screen == [1600, 900] && after.rect == [200, 0, 1200, 900], "\(after)")
    }

    @Test("a player killed mid-item leaves every sample stored, the item cut short saying how, and the session closed with endedBy")
    func playerDies() throws {
        if let missing = Self.missing {
            print("skipped: \(missing)")
            return
        }
        let display = try VirtualDisplay(width: 1280, height: 720)
        defer { display.stop() }
        let workspace = try Workspace()
        let temporary = workspace.folder.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let stimulus = workspace.folder.path("long.mp4")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=15",
                                                             "-pix_fmt", "yuv420p", stimulus])
        try #require(made.status == 0, "\(made.stderr)")
        let output = try TemporaryFolder()
        defer { output.remove() }
        let recorder = try Self.startRecorder(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--calibration", "none",
                                               "--present", stimulus],
                                              environment: ["DISPLAY": display.name, "TMPDIR": temporary, "GAZEREC_DATABASE": workspace.database],
                                              folder: output)
        defer { if recorder.isRunning { recorder.terminate() } }
        let socket = try #require(Self.playerSocket(in: temporary, while: recorder), "the player's socket never appeared")
        let watch = PositionWatch(try PlayerConnection(socketPath: socket, timeoutSeconds: 10, alive: { recorder.isRunning }))
        try #require(watch.wait(until: 1.0, seconds: 60), "the stimulus never reached 1 s")
        // mpv writes each client's messages in turn: give the recorder's connection time to read the
        // positions this one has seen.
        usleep(300_000)
        // When the player is killed (found by its socket, as a crash would end it).
        let killed = try Binary.runProcess("/usr/bin/pkill", ["-KILL", "-f", "input-ipc-server=" + socket])
        #expect(killed.status == 0)
        recorder.waitUntilExit()
        let stderr = (try? String(contentsOfFile: output.path("stderr"), encoding: .utf8)) ?? ""
        // Then the recording ended cleanly, with its samples and the reason, said on stderr too.
        #expect(recorder.terminationStatus == 0, "\(stderr)")
        #expect(stderr.contains("the recording ended: the stimulus player died: it was killed by signal 9"), "\(stderr)")
        #expect(Self.playerFolders(in: temporary).isEmpty, "left behind: \(Self.playerFolders(in: temporary))")
        let id = ((try? String(contentsOfFile: output.path("stdout"), encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let exported = try workspace.run(["export", id])
        try #require(exported.status == 0, "\(exported.stderr)")
        let session = try JSONValue.parse(Array(exported.stdoutData))
        #expect(Self.text(session["gazerec"]?["endedBy"]) == "the stimulus player died: it was killed by signal 9")
        #expect(session["gazerec"]?["interrupted"] == nil && Self.number(session["endTime"]) != nil)
        #expect((Self.number(session["gazerec"]?["recorder"]?["frames"]) ?? 0) > 10)
        let shown = try #require(session["gazerec"]?["presentations"]?.arrayValue?.first)
        #expect(Self.text(shown["ending"]) == "cutShort")
        #expect(Self.text(shown["endingReason"]) == "the stimulus player died: it was killed by signal 9")
        let played = (shown["playback"]?.arrayValue ?? []).compactMap { Self.number($0["stimulusSeconds"]) }
        // Every position up to the kill is kept (the watch saw 1 s; a loaded machine may not have let
        // the recorder read the last few frames' messages), and none after it.
        #expect((played.max() ?? 0) >= 0.9 && (played.max() ?? 99) < 14, "played \(played)")
    }

    @Test("no display and a display that cannot be opened (exit 64), a missing item (66) and an empty playlist (65) are refused with one line before anything is recorded")
    func refusals() throws {
        let workspace = try Workspace()
        let clip = Fixtures.path("video/cap13_blinks_20s.mp4")
        let noDisplay = try workspace.run(["start", "--input", clip, "--present", clip], environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        #expect(noDisplay.status == 64)
        #expect(noDisplay.stderr.hasPrefix("gazerec: error: there is no display to present on: neither DISPLAY nor WAYLAND_DISPLAY is set"),
                "\(noDisplay.stderr)")
        let missing = try workspace.run(["start", "--input", clip, "--present", workspace.folder.path("gone.mp4")],
                                        environment: ["DISPLAY": ":1234"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "gazerec: error: cannot read the stimulus \(workspace.folder.path("gone.mp4")): no such file\n")
        // A DISPLAY no X server answers on: refused before the player could fall back to a window on no screen.
        if VirtualDisplay.missingReason == nil {
            let unopenable = VirtualDisplay.unusedName()
            let closed = try workspace.run(["start", "--input", clip, "--present", clip, "--calibration", "none"],
                                           environment: ["DISPLAY": unopenable])
            #expect(closed.status == 64)
            #expect(closed.stderr.hasPrefix("gazerec: error: cannot open the X display \(unopenable) to present on")
                    && closed.stderr.split(separator: "\n").count == 1, "\(closed.stderr)")
        }
        let empty = workspace.folder.path("empty.txt")
        try "# to do\n".write(toFile: empty, atomically: true, encoding: .utf8)
        let emptyList = try workspace.run(["start", "--input", clip, "--present", empty], environment: ["DISPLAY": ":1234"])
        #expect(emptyList.status == 65 && emptyList.stderr.contains("holds no item"), "\(emptyList.stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.database))
    }
}
