import Foundation
import GazeModel
import JSONStream
import SessionStore
import Testing
import TestSupport

/// What a new user's first afternoon broke: data loss and silent failures. Each test drives the
/// real binary and failed before its fix.
@Suite("data loss and silent failures", .serialized)
struct FirstAfternoonTests {
    typealias Workspace = TestSupport.Workspace

    static let modelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static var ready: Bool { Fixtures.available && FileManager.default.fileExists(atPath: modelPath) }
    static let reason: Comment = "needs ../shared/fixtures and the dlib model (apt-get install libdlib-data)"

    // MARK: 1, 6: a running recording is protected

    @Test("while a recorder runs: delete of its session, --all and --database are refused, other sessions may go; a second start --detach leaves the recorder's log alone",
          .enabled(if: ready, reason))
    func recordingIsProtected() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let other = try work.storeSession(samples: 10)
        let started = try work.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--detach"])
        try #require(started.status == 0, "\(started.stderr)")
        let id = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        defer { _ = try? work.run(["stop"]) }
        let log = work.database + ".recorder.log"
        let logBefore = work.bytes(log)

        for arguments in [["delete", id], ["delete", id.lowercased(), other], ["delete", "--all", "--yes"],
                          ["delete", "--database", "--yes"]] {
            let result = try work.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains("session \(id) is being recorded into \(work.database)"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("'gazerec stop'"), "\(arguments)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }
        #expect(FileManager.default.fileExists(atPath: work.database))
        // A session beside the recording may be deleted.
        #expect(try work.run(["delete", other]).status == 0)

        let second = try work.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--detach"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("cannot start: session \(id) is being recorded"), "\(second.stderr)")
        #expect(work.bytes(log) == logBefore, "the running recorder's log was changed")

        let stopped = try work.run(["stop"])
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(try work.run(["list", "--ids"]).stdout == id + "\n")
        let exported = try JSONValue.parse(Array(try work.run(["export", id]).stdoutData))
        #expect((exported["gazerec"]?["frames"]?.arrayValue?.count ?? 0) > 0)
    }

    // MARK: 2: read-only archives

    @Test("a database in a folder that cannot be written is listed, shown and exported, and left unchanged",
          .enabled(if: Fixtures.available && getuid() == 0, "needs ../shared/fixtures and root (to read as another user)"))
    func readOnlyFolder() throws {
        let work = try Workspace()
        defer {
            chmod(work.folder.url.path, 0o755)
            work.folder.remove()
        }
        #expect(try work.run(["import", Fixtures.iosSession]).status == 0)
        let id = "3BE54760-F1E8-4799-A3CB-78806270E72A"
        let expected = try work.run(["export", "--all"]).stdoutData
        let before = try #require(work.bytes(work.database))
        // The binary where another user can run it (the checkout may lie in a folder only root enters).
        let binary = work.folder.path("gazerec")
        try FileManager.default.copyItem(atPath: Binary.gazerec, toPath: binary)
        try #require(chmod(binary, 0o755) == 0)
        // Another user may read the folder and the file, but write neither.
        try #require(chmod(work.folder.url.path, 0o555) == 0)
        func asNobody(_ arguments: [String]) throws -> CommandResult {
            try Binary.runProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", binary]
                                  + arguments, environment: ["GAZEREC_DATABASE": work.database, "HOME": "/nonexistent"])
        }
        let list = try asNobody(["list", "--ids"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout == id + "\n")
        let export = try asNobody(["export", "--all"])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdoutData == expected)
        for arguments in [["show", id], ["fixations", id], ["calibrations", "list"], ["list"]] {
            let result = try asNobody(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        #expect(work.bytes(work.database) == before)
        // Writing commands say why they cannot.
        let delete = try asNobody(["delete", id])
        #expect(delete.status == 1)
        #expect(delete.stderr.hasPrefix("gazerec: error: "), "\(delete.stderr)")
    }

    // MARK: 3: a mistyped path is not an empty store

    @Test("reading commands on a database that does not exist fail naming it; an empty GAZEREC_DATABASE is a usage error")
    func missingDatabase() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let typo = work.folder.path("typo/db.sqlite")
        for arguments in [["export", "--all"], ["export", "--all", "--output-dir", work.folder.path("out")], ["list"],
                          ["list", "--ids"], ["list", "--json"], ["show", "3BE54760-F1E8-4799-A3CB-78806270E72A"],
                          ["calibrations", "list"], ["calibrations", "export", "--all"]] {
            let result = try Binary.run(arguments, environment: ["GAZEREC_DATABASE": typo])
            #expect(result.status == 66, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
            #expect(result.stderr.hasPrefix("gazerec: error: no session database at \(typo)."), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: work.folder.path("typo")), "a reading command created the folder")
        #expect(!FileManager.default.fileExists(atPath: work.folder.path("out")))
        for arguments in [["list"], ["export", "--all"], ["delete", "--all", "--yes"], ["import", "x.json"]] {
            let result = try Binary.run(arguments, environment: ["GAZEREC_DATABASE": ""])
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("GAZEREC_DATABASE is set but empty"), "\(arguments): \(result.stderr)")
        }
        let empty = try Binary.run(["--database", "", "list"])
        #expect(empty.status == 64, "\(empty.stderr)")
    }

    @Test("start records into a folder that does not exist yet", .enabled(if: ready, reason))
    func startCreatesTheFolder() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let database = work.folder.path("new/sub/db.sqlite")
        let result = try Binary.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--as-fast-as-possible",
                                     "--duration", "1"], environment: ["GAZEREC_DATABASE": database])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: database))
    }

    // MARK: 4: the interrupted mark travels

    @Test("a session whose recorder died stays marked interrupted through export and import, and show says so")
    func interruptedTravels() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let id = try work.storeSession(samples: 120, ended: false)
        let repaired = try work.run(["repair"])
        #expect(repaired.stdout == id + "\n", "\(repaired.stderr)")
        let exported = try work.run(["export", id])
        let session = try JSONValue.parse(Array(exported.stdoutData))
        #expect(session["gazerec"]?["interrupted"] == .bool(true))
        #expect(try work.run(["show", id]).stdout.contains("interrupted"))

        let elsewhere = work.folder.path("elsewhere.sqlite")
        let file = work.folder.path("session.json")
        try exported.stdoutData.write(to: URL(fileURLWithPath: file))
        #expect(try Binary.run(["import", file], environment: ["GAZEREC_DATABASE": elsewhere]).status == 0)
        let list = try JSONValue.parse(Array(try Binary.run(["list", "--json"], environment: ["GAZEREC_DATABASE": elsewhere]).stdoutData))
        #expect(list.arrayValue?.first?["interrupted"] == .bool(true))
        let show = try Binary.run(["show", id], environment: ["GAZEREC_DATABASE": elsewhere])
        #expect(show.stdout.contains("interrupted"), "\(show.stdout)")
        // The export of the import is the same bytes.
        #expect(try Binary.run(["export", id], environment: ["GAZEREC_DATABASE": elsewhere]).stdoutData == exported.stdoutData)
    }

    @Test("an imported session without an end time stays as its file gave it: no command closes it as a dead recording",
          .enabled(if: Fixtures.available, "needs ../shared/fixtures"))
    func importedWithoutEnd() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        // Given the iOS export without its optional endTime.
        let original = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("eyetracking/example_data_output.json")))))
        guard case .object(let members) = original else {
            Issue.record("the fixture is not a session")
            return
        }
        let file = work.folder.path("open.json")
        try Data(JSONValue.object(members.filter { $0.0 != "endTime" }).compactText.utf8).write(to: URL(fileURLWithPath: file))
        let imported = try work.run(["import", file])
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = imported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // When the reading and repairing commands run, then nothing closes it or marks it.
        for arguments in [["list"], ["repair"], ["list"]] {
            let run = try work.run(arguments)
            #expect(run.status == 0 && !run.stderr.contains("whose recorder had died"), "\(arguments): \(run.stderr)")
            if arguments == ["repair"] { #expect(!run.stdout.contains(id), "repair closed it: \(run.stdout)") }
        }
        let exported = try JSONValue.parse(Array(try work.run(["export", id]).stdoutData))
        #expect(exported["endTime"] == nil && exported["gazerec"]?["interrupted"] == nil, "\(exported.compactText.prefix(300))")
    }

    @Test("a stdout that cannot take the output (a full disk, closed) ends list, show and import with one line and exit 1, never a crash; the import is stored",
          .enabled(if: Fixtures.available, "needs ../shared/fixtures"))
    func stdoutFails() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let fixture = Fixtures.path("eyetracking/example_data_output.json")
        func shell(_ command: String) throws -> CommandResult {
            try Binary.runProcess("/bin/sh", ["-c", command], environment: ["GAZEREC_DATABASE": work.database])
        }
        for redirect in ["> /dev/full", ">&-"] {
            let imported = try shell("'\(Binary.gazerec)' import '\(fixture)' --replace \(redirect)")
            #expect(imported.status == 1, "import \(redirect): \(imported.status) \(imported.stderr)")
            #expect(imported.stderr.contains("cannot write to standard output") && imported.stderr.contains("what the command stored is kept"),
                    "\(imported.stderr)")
            for command in ["list", "list --ids", "show 3BE54760", "show 3BE54760 --json"] {
                let run = try shell("'\(Binary.gazerec)' \(command) \(redirect)")
                #expect(run.status == 1 && run.stderr.split(separator: "\n").count == 1
                        && run.stderr.contains("cannot write to standard output"), "\(command) \(redirect): \(run.status) \(run.stderr)")
            }
        }
        #expect(try work.run(["list", "--ids"]).stdout == "3BE54760-F1E8-4799-A3CB-78806270E72A\n")
    }

    @Test("export --output into a FIFO writes into it for its reader, and through a symbolic link replaces the file it names: neither is replaced by a file",
          .enabled(if: Fixtures.available, "needs ../shared/fixtures"))
    func exportIntoSpecialDestinations() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        #expect(try work.run(["import", Fixtures.path("eyetracking/example_data_output.json")]).status == 0)
        let whole = try work.run(["export", "3BE54760"]).stdoutData
        // A FIFO with a reader: the reader gets the session, the FIFO stays one.
        let fifo = work.folder.path("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = work.folder.path("received.json")
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        // At most 20 s: a FIFO replaced by a file leaves its reader waiting for a writer that never comes.
        reader.arguments = ["-c", "timeout 20 cat '\(fifo)' > '\(received)'"]
        try reader.run()
        let intoFIFO = try work.run(["export", "3BE54760", "--output", fifo])
        reader.waitUntilExit()
        #expect(intoFIFO.status == 0, "\(intoFIFO.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: received)) == whole)
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO, "the FIFO was replaced")
        // A symbolic link: the file it names gets the session, the link stays.
        let target = work.folder.path("real.json"), link = work.folder.path("link.json")
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        #expect(symlink("real.json", link) == 0)
        let throughLink = try work.run(["export", "3BE54760", "--output", link])
        #expect(throughLink.status == 0, "\(throughLink.stderr)")
        #expect(lstat(link, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK, "the link was replaced")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == whole)
        // A link to nothing is refused, naming it.
        #expect(symlink("nowhere.json", work.folder.path("dangling.json")) == 0)
        let dangling = try work.run(["export", "3BE54760", "--output", work.folder.path("dangling.json")])
        #expect(dangling.status == 1 && dangling.stderr.contains("is a symbolic link to a file that does not exist"), "\(dangling.stderr)")
    }

    // MARK: 5: no temporary file outlives an interrupted export

    @Test("SIGINT and SIGTERM during an export to a file or a folder leave no temporary file",
          arguments: [(SIGTERM, false), (SIGINT, false), (SIGTERM, true)])
    func interruptedExport(signal: Int32, toFolder: Bool) throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        _ = try work.storeSession(samples: 400_000)
        let out = work.folder.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        // The export is stopped (SIGSTOP) the moment its temporary file is seen and the signal is sent
        // while it is stopped, so a busy machine cannot let it finish between the two; a run that did
        // finish first (its file already renamed) is tried again.
        var process = Process()
        var caught = false
        for _ in 0..<5 where !caught {
            try? FileManager.default.contentsOfDirectory(atPath: out).forEach {
                try FileManager.default.removeItem(atPath: out + "/" + $0)
            }
            process = Process()
            process.executableURL = URL(fileURLWithPath: Binary.gazerec)
            process.arguments = ["export", "--all"] + (toFolder ? ["--output-dir", out] : ["--output", out + "/all.json"])
            process.environment = ProcessInfo.processInfo.environment.merging(["GAZEREC_DATABASE": work.database]) { $1 }
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            func temporaryExists() -> Bool {
                (try? FileManager.default.contentsOfDirectory(atPath: out))?.contains(where: { $0.contains(".tmp-") }) == true
            }
            while Date() < deadline, process.isRunning {
                if temporaryExists() {
                    kill(process.processIdentifier, SIGSTOP)
                    caught = process.isRunning && temporaryExists()
                    break
                }
                usleep(2_000)
            }
            if !caught {
                kill(process.processIdentifier, SIGCONT)
                process.waitUntilExit()
            }
        }
        try #require(caught, "the export ended before its temporary file was seen, five times")
        kill(process.processIdentifier, signal)
        kill(process.processIdentifier, SIGCONT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + signal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [])
    }

    // MARK: 7: a recording without a face says so

    @Test("a clip without a face: a warning on stderr and in status while recording, and the session is marked",
          .enabled(if: ready, reason))
    func noFace() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let clip = work.folder.path("empty-room.mp4")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i",
                                                            "testsrc=size=320x240:rate=25:duration=9", "-pix_fmt", "yuv420p", clip])
        try #require(made.status == 0, "\(made.stderr)")

        let started = try work.run(["start", "--input", clip, "--detach"])
        try #require(started.status == 0, "\(started.stderr)")
        let id = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var warning: String?
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, warning == nil {
            let status = try work.run(["status", "--json"])
            if let parsed = try? JSONValue.parse(Array(status.stdoutData)), case .string(let text)? = parsed["warning"] {
                warning = text
            }
            if status.stdout.contains("\"running\": false") { break }
            usleep(200_000)
        }
        #expect(warning?.hasPrefix("no face found in 1 s") == true, "\(String(describing: warning))")
        let log = try String(contentsOfFile: work.database + ".recorder.log", encoding: .utf8)
        _ = try work.run(["stop"])
        #expect(log.contains("warning: no face found in 1 s"), "\(log)")
        let session = try JSONValue.parse(Array(try work.run(["export", id]).stdoutData))
        let warnings = session["gazerec"]?["warnings"]?.arrayValue ?? []
        #expect(warnings.count == 1)
        if case .string(let text)? = warnings.first {
            #expect(text.hasPrefix("no face was found in any of the ") && text.hasSuffix(" frames"), "\(text)")
        } else {
            Issue.record("no warnings in the export: \(String(describing: session["gazerec"]))")
        }
        #expect(try work.run(["show", id]).stdout.contains("no face was found in any of the"))

        let foreground = try work.run(["start", "--input", clip, "--as-fast-as-possible"])
        #expect(foreground.status == 0)
        #expect(foreground.stderr.contains("gazerec: warning: no face found in 1 s of frames"), "\(foreground.stderr)")
    }

    // MARK: 10, 11: what a replay can and cannot say

    @Test("a replay as fast as possible records no rate or lag; at its own pace it records both; --fps with --input is refused",
          .enabled(if: ready, reason))
    func replayFacts() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let clip = Fixtures.path("video/cap13_blinks_20s.mp4")
        let fast = try work.run(["start", "--input", clip, "--as-fast-as-possible", "--duration", "2"])
        try #require(fast.status == 0, "\(fast.stderr)")
        let fastFacts = try JSONValue.parse(Array(try work.run(["export", fast.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
            .stdoutData))["gazerec"]?["recorder"]
        #expect(fastFacts?["achievedFramesPerSecond"] == nil, "\(String(describing: fastFacts))")
        #expect(fastFacts?["lagMedianMilliseconds"] == nil)
        #expect(fastFacts?["lagP95Milliseconds"] == nil)
        #expect(fastFacts?["cpuSeconds"] != nil)

        let paced = try work.run(["start", "--input", clip, "--duration", "1.5"])
        try #require(paced.status == 0, "\(paced.stderr)")
        let pacedFacts = try JSONValue.parse(Array(try work.run(["export", paced.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
            .stdoutData))["gazerec"]?["recorder"]
        if case .number(let rate)? = pacedFacts?["achievedFramesPerSecond"] {
            #expect(rate > 15 && rate < 30, "a 25 fps clip at its own pace: \(rate)")
        } else {
            Issue.record("no achieved rate for a paced replay: \(String(describing: pacedFacts))")
        }
        if case .number(let lag)? = pacedFacts?["lagMedianMilliseconds"] {
            #expect(lag >= 0 && lag < 1000, "\(lag)")
        } else {
            Issue.record("no lag for a paced replay")
        }
        // CPU share = CPU seconds over the 1.5 s of wall time, in percent of one core.
        if case .number(let cpu)? = pacedFacts?["cpuSeconds"], case .number(let share)? = pacedFacts?["cpuPercentOfOneCore"] {
            #expect(share > 0 && abs(share - 100 * cpu / 1.5) < 0.2 * share + 1, "\(share) % for \(cpu) s")
        } else {
            Issue.record("no CPU share for a paced replay: \(String(describing: pacedFacts))")
        }

        for rate in ["30", "60"] {
            let refused = try work.run(["start", "--input", clip, "--fps", rate])
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("--fps \(rate) requests a camera's rate"), "\(refused.stderr)")
        }
    }


    // MARK: 12: gaze blend shapes rest near 0

    @Test("uncalibrated gaze blend shapes rest near 0 while the participant looks ahead, and each pair reads alike",
          .enabled(if: ready, reason))
    func blendShapesRest() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let names = ["eyeLookIn_L", "eyeLookIn_R", "eyeLookOut_L", "eyeLookOut_R", "eyeLookUp_L", "eyeLookUp_R",
                     "eyeLookDown_L", "eyeLookDown_R"]
        let recorded = try work.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--as-fast-as-possible",
                                     "--blend-shapes", names.joined(separator: ",")])
        try #require(recorded.status == 0, "\(recorded.stderr)")
        let session = try JSONValue.parse(Array(try work.run(["export", recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
            .stdoutData))
        func values(_ name: String) -> [Double] {
            (session["blendShapes"]?[name]?.arrayValue ?? []).compactMap { if case .number(let v)? = $0["value"] { v } else { nil } }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        // The first 10 s: the face looks ahead (the head turn comes later). Before the rest was
        // learned eyeLookOut_L read 0.53, eyeLookIn_R 0.40 and eyeLookUp_L 0.55 here.
        for name in names {
            let firstTen = Array(values(name).prefix(250))
            try #require(firstTen.count == 250, "\(name)")
            #expect(median(firstTen) <= 0.2, "\(name): median \(median(firstTen))")
            #expect(firstTen.contains { $0 > 0 }, "\(name) never moves")
        }
        for (left, right) in [("eyeLookIn_L", "eyeLookOut_R"), ("eyeLookOut_L", "eyeLookIn_R"), ("eyeLookUp_L", "eyeLookUp_R"),
                              ("eyeLookDown_L", "eyeLookDown_R")] {
            #expect(values(left) == values(right), "\(left) and \(right) differ")
        }
    }


    // MARK: 9: poses of another face model do not mix

    @Test("a six-point head pose calibration is refused by start and validate, naming it; one of the model before applies with its model",
          .enabled(if: ready, reason))
    func earlierHeadPoseModelRefused() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let clip = Fixtures.path("video/cap12_headturns_20s.mp4")
        let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/calibration-headturns-20s.txt").path
        let calibrated = try work.run(["calibrate", "--input", clip, "--script", script])
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        let id = calibrated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let document = try work.run(["calibrations", "export", id]).stdout
        #expect(document.contains("\"headPoseModel\":\"mean68-nose-eyes-1\""))
        // The same document as an earlier gazerec wrote it: no headPoseModel, another id.
        let earlierID = "0A1B2C3D-0000-4000-8000-000000000001"
        let earlier = document.replacingOccurrences(of: ",\"headPoseModel\":\"mean68-nose-eyes-1\"", with: "")
            .replacingOccurrences(of: id, with: earlierID)
        let file = work.folder.path("earlier.json")
        try earlier.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try work.run(["calibrations", "import", file]).status == 0)
        for arguments in [["start", "--input", clip, "--calibration", earlierID, "--duration", "1"],
                          ["validate", "--input", clip, "--calibration", earlierID, "--script", work.folder.path("none.txt")]] {
            try "validate 50% 50% 1 2\n".write(toFile: work.folder.path("none.txt"), atomically: true, encoding: .utf8)
            let refused = try work.run(arguments)
            #expect(refused.status == 1, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("calibration \(earlierID) measured head pose with the sixPoint face model of an "
                                            + "earlier gazerec"), "\(arguments): \(refused.stderr)")
        }
        // A session recorded now keeps its model, and the calibration of this version applies to it.
        let recorded = try work.run(["start", "--input", clip, "--as-fast-as-possible", "--duration", "1", "--calibration", "none"])
        let session = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let exported = try JSONValue.parse(Array(try work.run(["export", session]).stdoutData))
        #expect(exported["gazerec"]?["recorder"]?["headPoseModel"] == .string("mean68-nose-eyes-1"))
        #expect(try work.run(["recalibrate", session, "--calibration", id]).status == 0)
        let mismatch = try work.run(["recalibrate", session, "--calibration", earlierID])
        #expect(mismatch.status == 1 && mismatch.stderr.contains("head poses were measured with the mean68-nose-eyes-1 face model"),
                "\(mismatch.stderr)")
        // A calibration of the model before (mean68-rigid-1) keeps mapping: a recording applying it
        // measures head pose with that model, and says so.
        let rigidID = "0A1B2C3D-0000-4000-8000-000000000002"
        let rigid = document.replacingOccurrences(of: "\"headPoseModel\":\"mean68-nose-eyes-1\"", with: "\"headPoseModel\":\"mean68-rigid-1\"")
            .replacingOccurrences(of: id, with: rigidID)
        try rigid.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try work.run(["calibrations", "import", file]).status == 0)
        let applied = try work.run(["start", "--input", clip, "--as-fast-as-possible", "--duration", "1", "--calibration", rigidID])
        #expect(applied.status == 0, "\(applied.stderr)")
        let appliedSession = applied.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let appliedExport = try JSONValue.parse(Array(try work.run(["export", appliedSession]).stdoutData))
        #expect(appliedExport["gazerec"]?["recorder"]?["headPoseModel"] == .string("mean68-rigid-1"))
        func firstPitch(_ exported: JSONValue) -> JSONValue? {
            guard case .array(let frames)? = exported["gazerec"]?["frames"] else { return nil }
            return frames.lazy.compactMap { $0["pitchDegrees"] }.first
        }
        let pitches = (firstPitch(appliedExport), firstPitch(exported))
        #expect(pitches.0 != nil && pitches.0 != pitches.1, "the same frame's pitch by the two models: \(String(describing: pitches))")
        #expect(try work.run(["recalibrate", appliedSession, "--calibration", rigidID]).status == 0)
        #expect(try work.run(["recalibrate", appliedSession, "--calibration", id]).status == 1)
    }

}
