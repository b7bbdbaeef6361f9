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
