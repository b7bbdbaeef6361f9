import Foundation
import GazeModel
import JSONStream
import SessionStore
import Testing
import TestSupport

/// Recording end to end: the real binary, real processes, real signals.
@Suite("gazerec start/stop/status/repair", .serialized)
struct RecordingCommandTests {
    static let modelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static var ready: Bool { Fixtures.available && FileManager.default.fileExists(atPath: modelPath) }
    static let reason: Comment = "needs ../shared/fixtures and the dlib model (apt-get install libdlib-data)"
    static var clip: String { Fixtures.path("video/cap13_blinks_20s.mp4") }

    struct Workspace {
        let folder: TemporaryFolder
        var database: String { folder.path("db.sqlite") }
        init() throws { folder = try TemporaryFolder() }
        func run(_ arguments: [String]) throws -> CommandResult {
            try Binary.run(arguments, environment: ["GAZEREC_DATABASE": database])
        }
        func export(_ id: String) throws -> JSONValue {
            let result = try run(["export", id])
            try #require(result.status == 0, "\(result.stderr)")
            return try JSONValue.parse(Array(result.stdoutData))
        }
        /// Polls `status --json` until at least `frames` frames are recorded.
        func waitForFrames(_ frames: Int, timeout: Double = 20) throws -> JSONValue {
            let deadline = Date().addingTimeInterval(timeout)
            var last = ""
            while Date() < deadline {
                let result = try run(["status", "--json"])
                last = result.stdout + result.stderr
                let status = try JSONValue.parse(Array(result.stdoutData))
                if case .number(let count)? = status["frames"], count >= Double(frames) { return status }
                usleep(100_000)
            }
            let log = (try? String(contentsOfFile: database + ".recorder.log", encoding: .utf8)) ?? "(no recorder log)"
            Issue.record("no \(frames) frames within \(timeout) s; last status: \(last); recorder log: \(log)")
            throw CancellationError()
        }
        func detach(_ extra: [String] = []) throws -> String {
            let result = try run(["start", "--input", RecordingCommandTests.clip] + extra + ["--detach"])
            try #require(result.status == 0, "\(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        /// Detaches a recorder, kills it with SIGKILL once it has recorded `frames` frames and waits
        /// for it to be gone; returns its session id.
        func detachAndKill(_ extra: [String] = [], after frames: Int = 40) throws -> String {
            let id = try detach(extra)
            let status = try waitForFrames(frames)
            guard case .number(let number)? = status["pid"] else {
                Issue.record("no pid in \(status)")
                throw CancellationError()
            }
            kill(Int32(number), SIGKILL)
            while kill(Int32(number), 0) == 0 { usleep(20_000) }
            return id
        }
    }

    static func numbers(_ array: JSONValue?, _ key: String) -> [Double] {
        (array?.arrayValue ?? []).compactMap { if case .number(let n)? = $0[key] { return n } else { return nil } }
    }

    @Test("replaying the clip: every frame stored, timestamps increasing within the clip, series aligned, deviceInfo filled",
          .enabled(if: ready, reason))
    func endToEnd() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let result = try work.run(["start", "--input", Self.clip, "--as-fast-as-possible", "--app-id", "study-7",
                                   "--blend-shapes", "eyeBlink_L,eyeBlink_R,eyeLookIn_L", "--screen", "1440x900"])
        #expect(result.status == 0, "\(result.stderr)")
        let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session = try work.export(id)
        #expect(session["appID"] == .string("study-7"))
        #expect(session["deviceInfo"]?["model"] == .string("cap13_blinks_20s.mp4"))
        #expect(session["deviceInfo"]?["screenSize"] == .array([.number(1440), .number(900)]))
        #expect(session["deviceInfo"]?["systemName"] == .string("Linux"))
        #expect(session["scanPath"] == .array([]))  // no calibration yet
        let frames = session["gazerec"]?["frames"]
        #expect(frames?.arrayValue?.count == 500)
        let times = Self.numbers(frames, "timestamp")
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        guard case .number(let begin)? = session["beginTime"], case .number(let end)? = session["endTime"] else {
            Issue.record("no begin/end"); return
        }
        #expect(times.first! >= begin && times.last! <= end)
        #expect(abs((times.last! - times.first!) - 19.96) < 0.001)  // the clip's own span
        // Blend-shape series carry the frames' timestamps (every frame has a face here).
        let blinkLeft = session["blendShapes"]?["eyeBlink_L"]
        #expect(Self.numbers(blinkLeft, "timestamp") == times)
        #expect(session["blendShapes"]?["eyeLookIn_L"]?.arrayValue?.isEmpty == false)
        #expect(session["gazerec"]?["recorder"]?["frames"] == .number(500))
        #expect((session["gazerec"]?["blinks"]?.arrayValue?.count ?? 0) >= 2)
    }

    @Test("SIGTERM ends a foreground recording completely; stop from another process does the same for a detached one",
          .enabled(if: ready, reason))
    func sigtermAndStop() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        // Foreground, ended by SIGTERM.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.gazerec)
        process.arguments = ["start", "--input", Self.clip]
        var environment = ProcessInfo.processInfo.environment
        environment["GAZEREC_DATABASE"] = work.database
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        _ = try work.waitForFrames(25)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let id = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let session = try work.export(id)
        #expect(session["endTime"] != nil)
        let stored = session["gazerec"]?["frames"]?.arrayValue?.count ?? 0
        #expect(session["gazerec"]?["recorder"]?["frames"] == .number(Double(stored)))
        #expect(stored >= 25 && stored < 500)

        // Detached, ended by `gazerec stop`.
        let detached = try work.detach()
        _ = try work.waitForFrames(20)
        let stop = try work.run(["stop"])
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(stop.stdout == detached + "\n")
        let closed = try work.export(detached)
        #expect(closed["endTime"] != nil)
        let count = closed["gazerec"]?["frames"]?.arrayValue?.count ?? 0
        #expect(closed["gazerec"]?["recorder"]?["frames"] == .number(Double(count)))
        #expect(try work.run(["status"]).stdout == "not recording\n")
        let again = try work.run(["stop"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("no recorder is running"))
    }

    @Test("kill -9: the session stays readable, misses at most the last 0.5 s, and is closed by the next list",
          .enabled(if: ready, reason))
    func killNine() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let id = try work.detach()
        let status = try work.waitForFrames(60)
        guard case .number(let pid)? = status["pid"] else { Issue.record("no pid"); return }
        // The recorder's CPU share: some, and no more than the machine's cores can give.
        if case .number(let cpu)? = status["cpuPercentOfOneCore"] {
            #expect(cpu > 0 && cpu <= 100 * Double(ProcessInfo.processInfo.activeProcessorCount) + 5, "\(cpu)")
        } else {
            Issue.record("status gives no CPU share: \(status)")
        }
        // A second recorder is refused, naming the running one.
        let second = try work.run(["start", "--input", Self.clip])
        #expect(second.status == 1)
        #expect(second.stderr.contains("session \(id) is being recorded") && second.stderr.contains("process \(Int(pid))"))

        let killedAt = Date().timeIntervalSince1970
        kill(pid_t(pid), SIGKILL)
        usleep(300_000)
        // Readable and exportable while still open…
        let open = try work.export(id)
        #expect(open["endTime"] == nil)
        let times = Self.numbers(open["gazerec"]?["frames"], "timestamp")
        #expect(times.count >= 60)
        // …missing at most the last half second (the file replays in real time: frame time ≈ wall time).
        #expect(killedAt - times.last! <= 0.5, "last stored frame \(killedAt - times.last!) s before the kill")
        // The next list closes it at its last sample and marks it interrupted.
        let list = try work.run(["list"])
        #expect(list.stderr.contains("closed 1 session whose recorder had died: \(id)"))
        #expect(list.stdout.contains("interrupted"))
        let closed = try work.export(id)
        #expect(closed["endTime"] == .number(times.last!))
        // The stale lock does not block the next recording.
        let next = try work.run(["start", "--input", Self.clip, "--as-fast-as-possible", "--duration", "1"])
        #expect(next.status == 0, "\(next.stderr)")
    }

    @Test("a recording that ends leaves nothing beside the database (a detached one its log): no lock file, no status file",
          .enabled(if: ready, reason))
    func endedRecordingLeavesNoFiles() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let files = { try FileManager.default.contentsOfDirectory(atPath: work.folder.url.path).sorted() }
        let ended = try work.run(["start", "--input", Self.clip, "--duration", "1"])
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(try files() == ["db.sqlite"])
        _ = try work.detach()
        _ = try work.waitForFrames(10)
        #expect(try files().contains("db.sqlite.recorder") && files().contains("db.sqlite.recorder-status"))
        #expect(try work.run(["stop"]).status == 0)
        #expect(try files() == ["db.sqlite", "db.sqlite.recorder.log"])
        // Deleting the database deletes the detached recorder's log with it (it names the sessions).
        let deleted = try work.run(["delete", "--database", "--yes"])
        #expect(deleted.status == 0 && deleted.stderr.contains("removed \(work.database).recorder.log"), "\(deleted.stderr)")
        #expect(try files() == [])
    }

    @Test("a recorder killed with kill -9 leaves its lock and status files, which status, list and repair remove",
          .enabled(if: ready, reason), arguments: ["status", "list", "repair"])
    func deadRecorderFilesRemoved(command: String) throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        _ = try work.detachAndKill(after: 20)
        let lock = work.database + ".recorder", status = work.database + ".recorder-status"
        #expect(FileManager.default.fileExists(atPath: lock) && FileManager.default.fileExists(atPath: status))
        let result = try work.run([command])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: lock) && !FileManager.default.fileExists(atPath: status), "\(command)")
        switch command {
        case "status": #expect(result.stdout == "not recording\n")
        case "repair": #expect(result.stderr.contains("removed \(status), left by a recorder that died"), "\(result.stderr)")
        default: break
        }
    }

    @Test("status shows the running recorder's own figures only: a status file another process left is not read as its, nor removed under it")
    func statusOfAnotherProcess() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        // Given a recorder that holds the lock and has published no figures yet (this process, as a
        // starting recorder does), beside the status file of a recorder that died
        let descriptor = open(work.database + ".recorder", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0 && flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        defer { close(descriptor) }
        let info = Array(#"{"pid":\#(getpid()),"sessionID":"(unknown)","startedAt":0}"#.utf8)
        _ = pwrite(descriptor, info, info.count, 0)
        let status = work.database + ".recorder-status"
        let dead = #"{"pid":999999,"sessionID":"S","source":"clip","elapsedSeconds":9,"frames":270,"framesWithFace":270,"#
            + #""achievedFramesPerSecond":30,"droppedFrames":0,"blinks":2,"trackingState":"normal","updatedAt":0}"#
        try dead.write(toFile: status, atomically: true, encoding: .utf8)

        // When status is asked
        let shown = try work.run(["status", "--json"])
        // Then it names the running recorder, with none of the dead one's figures, and leaves both files
        let report = try JSONValue.parse(Array(shown.stdoutData))
        #expect(report["running"] == .bool(true) && report["pid"] == .number(Double(getpid())), "\(shown.stdout)")
        #expect(report["frames"] == nil && report["source"] == nil, "\(shown.stdout)")
        #expect(try work.run(["status"]).stdout.contains("starting (no figures yet)"))
        #expect(FileManager.default.fileExists(atPath: status) && FileManager.default.fileExists(atPath: work.database + ".recorder"))
    }

    @Test("export while recording shows a consistent, growing prefix", .enabled(if: ready, reason))
    func exportWhileRecording() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let id = try work.detach(["--blend-shapes", "eyeBlink_L,eyeBlink_R"])
        _ = try work.waitForFrames(30)
        let first = try work.export(id)
        usleep(700_000)
        let second = try work.export(id)
        _ = try work.run(["stop"])
        let firstTimes = Self.numbers(first["gazerec"]?["frames"], "timestamp")
        let secondTimes = Self.numbers(second["gazerec"]?["frames"], "timestamp")
        #expect(firstTimes.count >= 30)
        #expect(secondTimes.count > firstTimes.count)
        #expect(Array(secondTimes.prefix(firstTimes.count)) == firstTimes)
        // Consistent snapshot: each series has a sample for every stored frame with a face.
        for snapshot in [first, second] {
            let frames = Self.numbers(snapshot["gazerec"]?["frames"], "timestamp")
            #expect(Self.numbers(snapshot["blendShapes"]?["eyeBlink_L"], "timestamp") == frames)
            #expect(Self.numbers(snapshot["blendShapes"]?["eyeBlink_R"], "timestamp") == frames)
        }
    }

    @Test("bad start options are usage errors; an unknown blend shape lists the supported ones")
    func usage() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let unknown = try work.run(["start", "--input", "x.mp4", "--blend-shapes", "eyeBlink_L,cheekPuff"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("cheekPuff") && unknown.stderr.contains("eyeLookOut_R"))
        #expect(try work.run(["start", "--device", "/dev/video0", "--input", "x.mp4"]).status == 64)
        #expect(try work.run(["start", "--fps", "25"]).status == 64)
        #expect(try work.run(["start", "--duration", "0"]).status == 64)
        let noCamera = try work.run(["start", "--device", work.folder.path("video99")])
        #expect(noCamera.status == 66)
        #expect(noCamera.stderr.contains("no such device"))
    }
}

@Suite("Recording into a full disk")
struct DiskFullTests {
    @Test("a file-size limit mid-recording: clear error, exit 1, committed samples and other sessions readable",
          .enabled(if: RecordingCommandTests.ready, RecordingCommandTests.reason))
    func diskFull() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let environment = ["GAZEREC_DATABASE": database]
        #expect(try Binary.run(["import", Fixtures.iosSession], environment: environment).status == 0)
        // RLIMIT_FSIZE of 400 KiB: SQLite's writes fail partway, as on a full disk. The clip is
        // replayed at its own pace, as a camera delivers frames, so commits (every 0.25 s) hold a
        // few frames each and several land before the limit, however fast the machine: as fast as
        // possible, a fast machine's first batch after the first frame alone already crossed it.
        let result = try Binary.runProcess("/bin/bash", ["-c", "ulimit -f 400; exec \"$GAZEREC\" start --input \"$CLIP\""],
                                           environment: environment.merging(["GAZEREC": Binary.gazerec,
                                                                             "CLIP": RecordingCommandTests.clip]) { $1 })
        #expect(result.status == 1)
        #expect(result.stderr.contains("gazerec: error: cannot record samples in \(database)"))
        #expect(result.stderr.contains("is the disk full"))
        let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The committed part is there, and the next list closes it.
        let list = try Binary.run(["list"], environment: environment)
        #expect(list.stdout.contains(id))
        let exported = try Binary.run(["export", id], environment: environment)
        #expect(exported.status == 0)
        let frames = try JSONValue.parse(Array(exported.stdoutData))["gazerec"]?["frames"]?.arrayValue?.count ?? 0
        #expect(frames > 10 && frames < 500)
        // It was closed with why it ended, not left for a repair to call a crash.
        let gazerec = try JSONValue.parse(Array(exported.stdoutData))["gazerec"]
        #expect(gazerec?["interrupted"] == nil)
        guard case .string(let endedBy)? = gazerec?["endedBy"] else { Issue.record("no endedBy: \(String(describing: gazerec))"); return }
        #expect(endedBy.contains("cannot record samples"))
        #expect(gazerec?["recorder"]?["frames"] == .number(Double(frames)))
        #expect(!list.stderr.contains("closed 1 session whose recorder had died"))
        // The session imported before is untouched.
        #expect(try Binary.run(["export", "3BE54760-F1E8-4799-A3CB-78806270E72A"], environment: environment).status == 0)
    }
}

@Suite("gazerec start --stream")
struct LiveStreamTests {
    @Test("samples stream as NDJSON while recording; a closed pipe stops the stream, not the recording",
          .enabled(if: RecordingCommandTests.ready, RecordingCommandTests.reason))
    func stream() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite"), "GAZEREC": Binary.gazerec,
                           "CLIP": RecordingCommandTests.clip]
        // The reader takes 5 lines and leaves; the recorder goes on for its 3 s.
        let result = try Binary.runProcess("/bin/bash", ["-c",
            "set -o pipefail; \"$GAZEREC\" start --input \"$CLIP\" --duration 3 --stream ndjson --blend-shapes eyeBlink_L | head -n 5"],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 5)
        for line in lines {
            let sample = try JSONValue.parse(Array(line.utf8))
            #expect(sample["type"] == .string("sample"))
            #expect(sample["blendShapes"]?["eyeBlink_L"] != nil)
        }
        let list = try JSONValue.parse(Array(try Binary.run(["list", "--json"], environment: environment).stdoutData))
        let session = try #require(list.arrayValue?.first)
        guard case .number(let frames)? = session["blendShapeSamples"]?["eyeBlink_L"] else {
            Issue.record("no blend-shape count in \(session)"); return
        }
        #expect(frames > 40)  // ~75 frames in 3 s at 25 fps, far more than the 5 streamed lines read
    }
}
