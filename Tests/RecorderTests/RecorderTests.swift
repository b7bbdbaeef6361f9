import Foundation
import GazeCapture
import GazeCore
import GazeModel
import JSONStream
import Testing
import TestSupport
@testable import Recorder
@testable import SessionStore

@Suite("Recorder")
struct RecorderTests {
    static let modelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static var ready: Bool { Fixtures.available && FileManager.default.fileExists(atPath: modelPath) }
    static let reason: Comment = "needs ../shared/fixtures and the dlib model (apt-get install libdlib-data)"

    /// The fixture clip's frames re-stamped in Unix time, then a failure like a camera unplugged.
    final class FailingSource: FrameSource {
        let video: VideoFileSource
        let failAfter: Int
        /// A pause before each frame, as a camera's frames come at intervals (0: back to back).
        let intervalSeconds: Double
        /// Now, to the second: a camera's frames come after the recording's begin (a session ending
        /// before it begins is damage).
        var start = Date().timeIntervalSince1970.rounded(.up)
        var served = 0
        var name: String { "failing" }
        var width: Int { video.width }
        var height: Int { video.height }
        var framesPerSecond: Double { video.framesPerSecond }

        init(failAfter: Int, intervalSeconds: Double = 0) throws {
            video = try VideoFileSource(path: Fixtures.path("video/cap13_blinks_20s.mp4"))
            self.failAfter = failAfter
            self.intervalSeconds = intervalSeconds
        }

        func nextFrame() throws -> Frame? {
            if intervalSeconds > 0 { usleep(UInt32(intervalSeconds * 1_000_000)) }
            if served == failAfter { throw CaptureError.deviceLost(path: "/dev/video9", reason: "no such device") }
            guard var frame = try video.nextFrame() else { return nil }
            served += 1
            frame.timestampSeconds += start
            return frame
        }
    }

    func configuration(_ source: FrameSourceRequest, database: String, blendShapes: [BlendShapeName]) -> RecordingConfiguration {
        RecordingConfiguration(source: source, databasePath: database, modelPath: Self.modelPath, appID: "test",
                               blendShapes: blendShapes, screenWidth: 1280, screenHeight: 800, orientation: 3,
                               maximumDurationSeconds: nil, focalLengthPixels: nil)
    }

    @Test("a source that fails mid-session: the session is closed with every frame captured, and the error reported",
          .enabled(if: ready, reason))
    func sourceLost() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let source = try FailingSource(failAfter: 60)
        let recorder = RecordingRun(configuration: configuration(.frames(source, name: "failing"),
                                                             database: database, blendShapes: [.eyeBlinkLeft, .jawOpen]),
                                stop: StopRequest())
        var startedID: String?
        let result = try recorder.run(started: { startedID = $0 })
        #expect(startedID == result.sessionID)
        #expect(result.frames == 60)
        #expect("\(result.failure!)".contains("camera /dev/video9 was lost"))
        let store = try SessionDatabase(path: database)
        let summary = try store.summary(id: result.sessionID)
        // Closed: endTime is the last frame's time; not marked interrupted (it ended cleanly).
        #expect(summary.header.endTimeSeconds == source.start + 59 * 0.04)
        #expect(!summary.interrupted)
        #expect(try store.frameCount(id: result.sessionID).count == 60)
        #expect(summary.blendShapeSampleCounts.map(\.name) == ["eyeBlink_L", "jawOpen"])
        #expect(summary.blendShapeSampleCounts.allSatisfy { $0.count == 60 })
        #expect(summary.header.gazerecExtension?.endedBy?.contains("camera /dev/video9 was lost") == true)
        #expect(summary.header.deviceInfo.systemName == "Linux")
        #expect(summary.header.deviceInfo.systemVersion.contains("kernel"))
        // The lock is free again.
        #expect(RecorderLock.running(databasePath: database) == nil)
    }

    @Test("frames stamped before the recording began (a clock stepped back) still close a session that ends no earlier than it begins, which every reader takes",
          .enabled(if: ready, reason))
    func framesBeforeTheBegin() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let source = try FailingSource(failAfter: 30)
        source.start -= 3600
        let result = try RecordingRun(configuration: configuration(.frames(source, name: "failing"), database: database, blendShapes: []),
                                      stop: StopRequest()).run()
        let store = try SessionDatabase(path: database)
        let header = try store.summary(id: result.sessionID).header
        #expect(header.endTimeSeconds.map { $0 >= header.beginTimeSeconds } == true, "\(header)")
        #expect(try store.damage(id: result.sessionID) == nil)
    }

    @Test("a stop request ends the session with every processed frame stored", .enabled(if: ready, reason))
    func stopRequest() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let stop = StopRequest()
        var seen = 0
        // Frames at least 5 ms apart: the 370 frames after the 30th take over 1.8 s, so progress
        // (every 0.5 s) asks to stop before the source runs out, however fast the machine fits
        // them (back to back, a fast machine finished all 400 before the first progress report).
        let recorder = RecordingRun(configuration: configuration(.frames(try FailingSource(failAfter: 400, intervalSeconds: 0.005),
                                                                     name: "clip"),
                                                             database: database, blendShapes: BlendShapeName.defaultSet),
                                stop: stop)
        let result = try recorder.run(progress: { status in
            seen = status.frames
            if status.frames >= 30 { stop.request() }
        })
        #expect(result.failure == nil)
        #expect(result.frames >= 30 && result.frames < 400)
        #expect(seen <= result.frames)
        let store = try SessionDatabase(path: database)
        #expect(try store.frameCount(id: result.sessionID).count == result.frames)
        #expect(try store.summary(id: result.sessionID).blendShapeSampleCounts.allSatisfy { $0.count == result.frames })
    }

    @Test("one recorder per database; a dead recorder's lock is stale and its session is repaired")
    func lockAndRepair() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let lock = try RecorderLock(databasePath: database)
        try lock.publish(RecorderInfo(pid: 4242, sessionID: "AAAAAAAA-0000-0000-0000-000000000001", startedAt: 1))
        #expect(RecorderLock.running(databasePath: database)?.pid == 4242)
        #expect(throws: RecorderError.alreadyRecording(sessionID: "AAAAAAAA-0000-0000-0000-000000000001", pid: 4242,
                                                       databasePath: database)) {
            _ = try RecorderLock(databasePath: database)
        }
        lock.release()
        #expect(RecorderLock.running(databasePath: database) == nil)

        // A session left open with samples is closed at its last sample and marked interrupted.
        let store = try SessionDatabase(path: database)
        let header = SessionHeader(id: "AAAAAAAA-0000-0000-0000-000000000002", appID: "a", beginTimeSeconds: 100,
                                   endTimeSeconds: nil, deviceInfo: DeviceInfo(model: "m", screenWidth: 1, screenHeight: 1,
                                                                                systemName: "Linux", systemVersion: "v"))
        let writer = try SessionWriter(database: store, header: header, blendShapeNames: ["eyeBlink_L"], recorderPID: 4242)
        var batch = SampleBatchToAppend()
        batch.frames = [FrameMeasurement(timestampSeconds: 101, trackingState: .normal, confidence: 0.9),
                        FrameMeasurement(timestampSeconds: 101.5, trackingState: .normal, confidence: 0.9)]
        batch.blendShapes["eyeBlink_L"] = [BlendShapeSample(timestampSeconds: 101.5, value: 0.2, orientation: 3)]
        try writer.append(batch)
        #expect(try store.repairInterruptedSessions(except: "AAAAAAAA-0000-0000-0000-000000000002").isEmpty)
        #expect(try store.repairInterruptedSessions() == ["AAAAAAAA-0000-0000-0000-000000000002"])
        let summary = try store.summary(id: "AAAAAAAA-0000-0000-0000-000000000002")
        #expect(summary.header.endTimeSeconds == 101.5)
        #expect(summary.interrupted)
    }

    @Test("frames and blinks round-trip through export and import under \"gazerec\"")
    func extensionRoundTrip() throws {
        let store = try SessionDatabase()
        let header = SessionHeader(id: "AAAAAAAA-0000-0000-0000-000000000003", appID: "a", beginTimeSeconds: 100,
                                   endTimeSeconds: nil, deviceInfo: DeviceInfo(model: "m", screenWidth: 1, screenHeight: 1,
                                                                                systemName: "Linux", systemVersion: "v"),
                                   gazerecExtension: SessionExtension(json: .object([("formatVersion", .number(1))])))
        let writer = try SessionWriter(database: store, header: header, blendShapeNames: [], recorderPID: 1)
        var batch = SampleBatchToAppend()
        let frame = FrameMeasurement(
            timestampSeconds: 100.25, trackingState: .normal, confidence: 0.75, opennessLeft: 0.5,
            headPose: HeadPoseMeasurement(yawDegrees: -12.5, pitchDegrees: 2, rollDegrees: 0.5,
                                          translation: Vector3(-10, 20, 5000)))
        batch.frames = [frame, FrameMeasurement(timestampSeconds: 100.5, trackingState: .missing, confidence: 0)]
        batch.blinks = [BlinkEvent(startSeconds: 100.3, endSeconds: 100.45, eyes: .both, kind: .blink, minimumOpenness: 0.1)]
        try writer.append(batch)
        try writer.close(endTimeSeconds: 100.5, gazerecExtension: header.gazerecExtension)
        let sink = MemoryByteSink()
        try store.export(ids: [header.id], asArray: false, to: sink)
        #expect(sink.text.contains(#""gazerec":{"formatVersion":1,"attention":{"frames":2,"faceShare":0.5,"blinks":1,"longClosures":0,"blinksPerMinute":0,"perclos":0},"frames":[{"timestamp":100.25,"trackingState":"normal","confidence":0.75,"opennessLeft":0.5,"yawDegrees":-12.5,"pitchDegrees":2,"rollDegrees":0.5,"tx":-10,"ty":20,"tz":5000},{"timestamp":100.5,"trackingState":"missing","confidence":0}],"blinks":[{"start":100.3,"end":100.45,"eyes":"both","kind":"blink","minimumOpenness":0.1}]}"#))
        let fresh = try SessionDatabase()
        try fresh.importSessions(from: [.bytes(sink.bytes, name: "x.json")])
        let again = MemoryByteSink()
        try fresh.export(ids: [header.id], asArray: false, to: again)
        #expect(again.bytes == sink.bytes)
    }

    @Test("a marker line whose label holds a control character or runs over 1,000 characters is skipped with a short warning")
    func markerLineLabels() {
        /// The warnings given, in order (the feed calls back on the caller's thread here).
        final class Warnings: @unchecked Sendable { var said: [String] = [] }
        let box = Warnings()
        let warning: MarkerFeed.Warning = { box.said.append($0) }
        #expect(MarkerFeed.marker("stimulus\u{0}B", time: 5, where: "pipe:1", warning: warning) == nil)
        #expect(MarkerFeed.marker("stimulus\u{1B}[31mB\t{\"trial\": 1}", time: 5, where: "pipe:2", warning: warning) == nil)
        #expect(MarkerFeed.marker(String(repeating: "m", count: 100_000), time: 5, where: "pipe:3", warning: warning) == nil)
        #expect(MarkerFeed.marker(String(repeating: "m", count: 1_000), time: 5, where: "pipe:4", warning: warning)?.label.count == 1_000)
        let warnings = box.said
        #expect(warnings.count == 3, "\(warnings)")
        #expect(warnings.count == 3 && warnings[0].hasPrefix("pipe:1: ") && warnings[0].contains("U+0000, NUL")
                && warnings[1].contains("U+001B") && warnings[2].contains("label is 100000 characters long"), "\(warnings)")
        #expect(warnings.allSatisfy { $0.count < 300 && $0.hasSuffix("line skipped") }, "\(warnings)")
    }

    @Test("a marker line whose data runs over 64 KiB keeps its marker without the data, with a short warning; 64 KiB is kept")
    func markerLineDataLimit() {
        final class Warnings: @unchecked Sendable { var said: [String] = [] }
        let box = Warnings()
        let warning: MarkerFeed.Warning = { box.said.append($0) }
        func data(_ bytes: Int) -> String { "{\"pad\":\"" + String(repeating: "x", count: bytes - 10) + "\"}" }

        let over = MarkerFeed.marker("stimulus\t" + data(65_537), time: 5, where: "pipe:1", warning: warning)
        let atLimit = MarkerFeed.marker("stimulus\t" + data(65_536), time: 6, where: "pipe:2", warning: warning)

        #expect(over == Marker(timestampSeconds: 5, label: "stimulus", dataJSON: nil))
        #expect(atLimit?.dataJSON == data(65_536))
        #expect(box.said.count == 1, "\(box.said.map { $0.prefix(200) })")
        #expect(box.said.first.map { $0.count < 300 && $0.contains("65537 bytes") && $0.contains("65536") } == true,
                "\(box.said.map { $0.prefix(300) })")
    }

    @Test("a recorder that holds the lock but has not made its session yet is named by its process at once, not process 0")
    func lockNamesStartingRecorder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let lock = try RecorderLock(databasePath: database)
        defer { lock.release() }

        #expect(throws: RecorderError.alreadyRecording(sessionID: RecorderInfo.unknownSession, pid: getpid(), databasePath: database)) {
            _ = try RecorderLock(databasePath: database)
        }
        #expect(RecorderLock.running(databasePath: database)?.pid == getpid())
        #expect(RecorderError.alreadyRecording(sessionID: RecorderInfo.unknownSession, pid: 42, databasePath: "d.sqlite").description
                == "cannot start: process 42 is starting a recording into d.sqlite.")
    }
}
