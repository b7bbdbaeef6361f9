import Foundation
import Testing
import TestSupport

/// What a researcher's trial of the experiment flow found (issue "Trust"): each test drives the
/// real binary and failed before its fix.
@Suite("trust: what a researcher's trial found")
struct TrustTests {
    @Test("a JSON file with a UTF-8 byte-order mark imports like the same file without one (17)",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func byteOrderMarkImports() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let marked = folder.path("windows.json")
        let original = try Data(contentsOf: URL(fileURLWithPath: Fixtures.iosSession))
        try (Data([0xEF, 0xBB, 0xBF]) + original).write(to: URL(fileURLWithPath: marked))
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]

        let imported = try Binary.run(["import", marked], environment: environment)
        #expect(imported.status == 0, "\(imported.stderr)")
        let exported = try Binary.run(["export", "--all"], environment: environment)

        #expect(exported.status == 0)
        let plain = try Binary.run(["import", Fixtures.iosSession], environment: ["GAZEREC_DATABASE": folder.path("plain.sqlite")])
        #expect(plain.status == 0)
        let reference = try Binary.run(["export", "--all"], environment: ["GAZEREC_DATABASE": folder.path("plain.sqlite")])
        #expect(!exported.stdout.isEmpty && exported.stdout == reference.stdout)
    }

    static var ready: Bool {
        Fixtures.available && FileManager.default.fileExists(atPath: "/usr/share/dlib/shape_predictor_68_face_landmarks.dat")
    }

    /// Records 2 s of the blink clip with its video kept at `video`; returns the session id.
    static func recordWithVideo(_ video: String, environment: [String: String]) throws -> String {
        let recorded = try Binary.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--duration", "2",
                                       "--calibration", "none", "--save-video", video], environment: environment)
        try #require(recorded.status == 0, "\(recorded.stderr)")
        try #require(FileManager.default.fileExists(atPath: video))
        return recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("delete removes a session's saved face video in the same step and names it; --all and --database too (1)",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func deleteRemovesVideo() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let first = folder.path("first.mkv"), second = folder.path("second.mkv"), third = folder.path("third.mkv")
        let id = try Self.recordWithVideo(first, environment: environment)
        _ = try Self.recordWithVideo(second, environment: environment)

        let deleted = try Binary.run(["delete", String(id.prefix(8))], environment: environment)

        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: first))
        #expect(deleted.stderr.contains("removed \(first)"))
        #expect(FileManager.default.fileExists(atPath: second))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).allSatisfy { !$0.hasPrefix(".gazerec-deleting") })

        let all = try Binary.run(["delete", "--all", "--yes"], environment: environment)
        #expect(all.status == 0 && all.stderr.contains("removed \(second)"), "\(all.stderr)")
        #expect(!FileManager.default.fileExists(atPath: second))

        _ = try Self.recordWithVideo(third, environment: environment)
        let database = try Binary.run(["delete", "--database", "--yes"], environment: environment)
        #expect(database.status == 0 && database.stderr.contains("removed \(third)"), "\(database.stderr)")
        #expect(!FileManager.default.fileExists(atPath: third))
        #expect(!FileManager.default.fileExists(atPath: folder.path("db.sqlite")))
    }

    @Test("a video that cannot be removed fails the deletion naming it, and keeps the session whole (1)",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func unremovableVideoKeepsSession() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let videos = folder.url.appendingPathComponent("videos").path
        try FileManager.default.createDirectory(atPath: videos, withIntermediateDirectories: true)
        let video = videos + "/kept.mkv"
        let id = try Self.recordWithVideo(video, environment: environment)
        let before = try Binary.run(["export", id], environment: environment).stdout
        // An immutable folder: nothing in it can be renamed or removed, not even by root.
        let locked = try Binary.runProcess("/usr/bin/chattr", ["+i", videos])
        try #require(locked.status == 0, "chattr +i is needed to make a file that cannot be removed: \(locked.stderr)")
        defer { _ = try? Binary.runProcess("/usr/bin/chattr", ["-i", videos]) }

        let deleted = try Binary.run(["delete", id], environment: environment)

        #expect(deleted.status == 1)
        #expect(deleted.stderr.contains(video) && deleted.stderr.contains("the session was kept"), "\(deleted.stderr)")
        #expect(deleted.stderr.split(separator: "\n").count == 1)
        #expect(FileManager.default.fileExists(atPath: video))
        #expect(try Binary.run(["export", id], environment: environment).stdout == before)
    }

    @Test("a file at a session's video path that is not its recording (no header naming the session) is left alone, and said so (1)",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func foreignFileAtVideoPathKept() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let video = folder.path("video.mkv")
        let id = try Self.recordWithVideo(video, environment: environment)
        // Since the recording, another file took the video's place (an imported session's path on
        // this machine names whatever is there).
        try Data("a researcher's other file".utf8).write(to: URL(fileURLWithPath: video))

        let deleted = try Binary.run(["delete", id], environment: environment)

        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try String(contentsOfFile: video, encoding: .utf8) == "a researcher's other file")
        #expect(deleted.stderr.contains("kept \(video)"), "\(deleted.stderr)")
    }

    @Test("export ID ID (or an id and its prefix) writes the session once, and the output imports (18)",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func exportEachSessionOnce() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let imported = try Binary.run(["import", Fixtures.iosSession], environment: environment)
        try #require(imported.status == 0)
        let id = imported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let single = try Binary.run(["export", id], environment: environment)

        let twice = try Binary.run(["export", id, id.lowercased(), String(id.prefix(8))], environment: environment)

        #expect(twice.status == 0, "\(twice.stderr)")
        #expect(twice.stdout == single.stdout)
        #expect(twice.stderr.contains("each session is exported once"))
        let file = folder.path("twice.json")
        try Data(twice.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let again = try Binary.run(["import", file], environment: ["GAZEREC_DATABASE": folder.path("fresh.sqlite")])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test("show gives frames per second and gaze samples per second apart, not one 'achieved rate' (11)",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func showRates() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        // 3 s of the blink clip without a calibration: 76 frames (25.3 per second), no gaze samples.
        let recorded = try Binary.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--duration", "3",
                                       "--calibration", "none"], environment: environment)
        try #require(recorded.status == 0, "\(recorded.stderr)")
        let id = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let show = try Binary.run(["show", id], environment: environment)

        #expect(!show.stdout.contains("Achieved rate"))
        let frames = try #require(show.stdout.split(separator: "\n").first { $0.hasPrefix("Frames ") })
        #expect(frames.contains("frames per second"), "\(frames)")
        let count = Double(frames.split(separator: " ").dropFirst().first { !$0.isEmpty }!.dropLast())!
        let rate = Double(frames.split(separator: " ").reversed().dropFirst(3).first!)!
        #expect(abs(rate - count / 3) < 0.5, "\(frames)")
        #expect(show.stdout.contains("Gaze samples   0\n"))
    }
}

// MARK: - Items 9, 15, 19 and 20

extension TrustTests {
    /// Polls `condition` every 2 ms for up to `seconds`; returns whether it came true.
    static func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(2_000)
        }
        return condition()
    }

    /// Starts the binary without waiting for it (its output is not kept).
    static func launch(_ arguments: [String], environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.gazerec)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs the binary and sends it `signal` the moment `caught` holds: it is stopped (SIGSTOP) when
    /// `caught` is seen, so a busy machine cannot let it finish before the signal; a run that ended
    /// first is tried again (five times). Returns its termination status.
    static func interrupt(_ arguments: [String], environment: [String: String], signal: Int32,
                          when caught: () -> Bool) throws -> Int32 {
        for _ in 0..<5 {
            let process = try launch(arguments, environment: environment)
            var seen = false
            _ = wait(seconds: 60) {
                guard process.isRunning else { return true }
                guard caught() else { return false }
                kill(process.processIdentifier, SIGSTOP)
                seen = process.isRunning && caught()
                return true
            }
            if seen {
                kill(process.processIdentifier, signal)
                kill(process.processIdentifier, SIGCONT)
                process.waitUntilExit()
                return process.terminationStatus
            }
            kill(process.processIdentifier, SIGCONT)
            process.waitUntilExit()
        }
        Issue.record("gazerec \(arguments.joined(separator: " ")) ended before it could be interrupted, five times")
        return -1
    }

    @Test("an interrupted reanalyze (SIGINT, SIGTERM) leaves no scratch folder; one a kill -9 left is swept by the next reanalyze, a live process's is kept (9)",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func reanalyzeLeavesNoScratch() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scratch = folder.path("tmp")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite"), "TMPDIR": scratch]
        let id = try Self.recordWithVideo(folder.path("video.mkv"), environment: environment)
        func leftovers() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? []).filter { $0.hasPrefix("gazerec-reanalysis-") }.sorted()
        }

        for signal in [SIGINT, SIGTERM] {
            let status = try Self.interrupt(["reanalyze", id], environment: environment, signal: signal) { !leftovers().isEmpty }
            #expect(status == 128 + signal, "signal \(signal)")
            #expect(leftovers().isEmpty, "signal \(signal): \(leftovers())")
        }

        let killed = try Self.interrupt(["reanalyze", id], environment: environment, signal: SIGKILL) { !leftovers().isEmpty }
        #expect(killed == SIGKILL)
        let stale = leftovers()
        try #require(stale.count == 1, "a kill -9 leaves the scratch folder: \(stale)")
        // A folder of a process that is alive (this one) is not another run's leftover.
        let live = "gazerec-reanalysis-\(getpid())-Abc123"
        try FileManager.default.createDirectory(atPath: scratch + "/" + live, withIntermediateDirectories: false)

        let again = try Binary.run(["reanalyze", id], environment: environment)

        #expect(again.status == 0, "\(again.stderr)")
        #expect(leftovers() == [live])
        #expect(again.stderr.contains("removed \(scratch)/\(stale[0])"), "\(again.stderr)")
    }

    @Test("a kill -9 during export --output leaves its temporary file; the next export to that file removes it, and not a live process's (9)")
    func killedExportSwept() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        _ = try work.storeSession(samples: 400_000)
        let out = work.folder.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let target = out + "/all.json"
        func temporaries() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).filter { $0.contains(".tmp-") }.sorted()
        }

        let status = try Self.interrupt(["export", "--all", "--output", target], environment: ["GAZEREC_DATABASE": work.database],
                                        signal: SIGKILL) { !temporaries().isEmpty }
        #expect(status == SIGKILL)
        try #require(temporaries().count == 1, "a kill -9 leaves the temporary file")
        let live = "all.json.tmp-\(getpid())"
        FileManager.default.createFile(atPath: out + "/" + live, contents: Data("another export's".utf8))

        let again = try work.run(["export", "--all", "--output", target])

        #expect(again.status == 0, "\(again.stderr)")
        #expect(temporaries() == [live])
        #expect(FileManager.default.fileExists(atPath: target))
    }

    @Test("errors name the fix: a duplicate import names --replace and --skip-existing (15)",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func duplicateImportNamesOptions() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        #expect(try Binary.run(["import", Fixtures.iosSession], environment: environment).status == 0)

        let again = try Binary.run(["import", Fixtures.iosSession], environment: environment)

        #expect(again.status == 1)
        #expect(again.stderr.split(separator: "\n").count == 1, "\(again.stderr)")
        #expect(again.stderr.contains("--replace") && again.stderr.contains("--skip-existing"), "\(again.stderr)")
    }

    @Test("errors name the fix: reanalyze of a session recorded without its video names start --save-video (15)",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func reanalyzeWithoutVideoNamesOption() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        #expect(try Binary.run(["import", Fixtures.iosSession], environment: environment).status == 0)

        let refused = try Binary.run(["reanalyze", "3BE54760"], environment: environment)

        #expect(refused.status == 1)
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("gazerec start --save-video"), "\(refused.stderr)")
    }

    @Test("errors name the fix: a lab server that cannot be reached, resolved or parsed is one line of ours for the reading commands (15)")
    func badServerAddressOneLine() throws {
        for address in ["postgres://station@127.0.0.1:1/lab", "postgres://station@no-such-host.invalid/lab",
                        "postgres://station@127.0.0.1:port/lab"] {
            for arguments in [["list"], ["show", "3BE54760"], ["export", "--all"]] {
                let result = try Binary.run(["--database", address] + arguments)
                #expect(result.status == 1, "\(address) \(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty)
                #expect(result.stderr.split(separator: "\n").count == 1, "\(address) \(arguments): \(result.stderr)")
                #expect(result.stderr.hasPrefix("gazerec: error: cannot reach the lab server at "), "\(result.stderr)")
            }
        }
    }

    @Test("labels, names and app ids with control characters or over 1,000 characters are refused with a short usage error (19)",
          arguments: [
              (["start", "--app-id", "study\t1"], "--app-id", "U+0009"),
              (["start", "--app-id", String(repeating: "s", count: 100_000)], "--app-id", "1000"),
              (["mark", "stimulus\nB"], "label", "U+000A"),
              (["mark", "stimulus\u{1B}[31m"], "label", "U+001B"),
              (["mark", String(repeating: "m", count: 1_001)], "label", "label is 1001 characters long"),
              (["calibrate", "--input", "x.mp4", "--name", "p01\r"], "--name", "U+000D"),
          ])
    func labelRules(arguments: [String], names: String, detail: String) throws {
        // A database in a folder of its own: were the label let through, nothing outside it is touched.
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try Binary.run(arguments, environment: ["GAZEREC_DATABASE": folder.path("db.sqlite")])
        // A usage error: one line of ours.
        #expect(result.status == 64, "\(result.stderr)")
        let sentence = String(result.stderr.split(separator: "\n").first ?? "")
        #expect(sentence.hasPrefix("gazerec: error: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.count < 600, "the label is not echoed whole: \(result.stderr.count) characters")
        #expect(sentence.contains(names) && sentence.contains(detail), "\(result.stderr)")
    }

    @Test("a label of exactly 1,000 characters is a label (19)")
    func labelAtLimit() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try Binary.run(["mark", String(repeating: "m", count: 1_000)],
                                    environment: ["GAZEREC_DATABASE": folder.path("db.sqlite")])
        #expect(result.status == 1 && result.stderr.contains("no recording"), "\(result.stderr)")
    }

    @Test("--duration -1 is a usage error saying what a duration must be, not 'Missing value' (20)",
          arguments: ["-1", "-0.5", "0"])
    func negativeDuration(value: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try Binary.run(["start", "--input", "x.mp4", "--duration", value],
                                    environment: ["GAZEREC_DATABASE": folder.path("db.sqlite")])
        #expect(result.status == 64)
        #expect(result.stderr == "gazerec: error: --duration must be a positive number of seconds. See 'gazerec start --help'.\n",
                "\(result.stderr)")
        #expect(!result.stderr.contains("Missing value"))
    }

    @Test("a start racing another start names the other's process, never 'process 0' (20)",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func startRaceNamesProcess() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let clip = Fixtures.path("video/cap13_blinks_20s.mp4")
        let first = try Self.launch(["start", "--input", clip, "--duration", "6", "--calibration", "none"], environment: environment)
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        // The lock file appears when the first start takes the lock, before it has loaded the model
        // and made its session.
        try #require(Self.wait(seconds: 30) { FileManager.default.fileExists(atPath: folder.path("db.sqlite.recorder")) })

        let second = try Binary.run(["start", "--input", clip, "--duration", "1", "--calibration", "none"], environment: environment)

        #expect(second.status == 1)
        #expect(second.stderr.contains("process \(first.processIdentifier)"), "\(second.stderr)")
        #expect(!second.stderr.contains("process 0"), "\(second.stderr)")
        kill(first.processIdentifier, SIGTERM)
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
    }

    @Test("show, list and export of an empty (0-byte) file say it is no session database and leave it empty (20)",
          arguments: [["show", "3BE54760"], ["list"], ["export", "--all"], ["calibrations", "list"]])
    func emptyFileStaysEmpty(arguments: [String]) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let empty = folder.path("empty.sqlite")
        FileManager.default.createFile(atPath: empty, contents: Data())

        let result = try Binary.run(arguments, environment: ["GAZEREC_DATABASE": empty])

        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("gazerec: error: \(empty) is not a session database: it is empty (0 bytes)."),
                "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["empty.sqlite"])
        #expect(try FileManager.default.attributesOfItem(atPath: empty)[.size] as? Int == 0)
    }

    @Test("calibration ids can be named by a unique prefix like session ids; an ambiguous prefix is a clear error (20)",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func calibrationPrefixes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let script = folder.path("script.txt")
        try CalibrateCommandTests.headTurnScript.write(toFile: script, atomically: true, encoding: .utf8)
        let calibrated = try Binary.run(["calibrate", "--input", Fixtures.path("video/cap12_edit.mp4"), "--script", script,
                                         "--minimum-samples", "6"], environment: ["GAZEREC_DATABASE": folder.path("made.sqlite")])
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        let made = calibrated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let document = try Binary.run(["calibrations", "export", made], environment: ["GAZEREC_DATABASE": folder.path("made.sqlite")]).stdout
        // Two copies under ids that share their first four characters.
        let first = "ABCD1111-0000-4000-8000-000000000001", second = "ABCD2222-0000-4000-8000-000000000002"
        for id in [first, second] {
            let file = folder.path(id + ".json")
            try document.replacingOccurrences(of: made, with: id).write(toFile: file, atomically: true, encoding: .utf8)
            let imported = try Binary.run(["calibrations", "import", file], environment: environment)
            try #require(imported.status == 0, "\(imported.stderr)")
        }

        let shown = try Binary.run(["calibrations", "show", "abcd1"], environment: environment)
        #expect(shown.status == 0 && shown.stdout.contains("calibration \(first)"), "\(shown.stderr)")
        let exported = try Binary.run(["calibrations", "export", "ABCD2222"], environment: environment)
        #expect(exported.status == 0 && exported.stdout.contains(second), "\(exported.stderr)")
        let ambiguous = try Binary.run(["calibrations", "export", "abcd"], environment: environment)
        #expect(ambiguous.status == 1 && ambiguous.stdout.isEmpty)
        #expect(ambiguous.stderr.split(separator: "\n").count == 1, "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("fits several calibrations") && ambiguous.stderr.contains(first)
                && ambiguous.stderr.contains(second), "\(ambiguous.stderr)")
        let recorded = try Binary.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--duration", "1",
                                       "--calibration", "abcd1"], environment: environment)
        #expect(recorded.status == 0 && recorded.stderr.contains("applying calibration \(first)"), "\(recorded.stderr)")
        let deleted = try Binary.run(["calibrations", "delete", "abcd2"], environment: environment)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let left = try Binary.run(["calibrations", "list", "--ids"], environment: environment)
        #expect(left.stdout == first + "\n")
    }
}
