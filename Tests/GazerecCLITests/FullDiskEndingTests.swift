import Foundation
import JSONStream
import Testing
import TestSupport

/// A recording ended by a full disk, told as such by every door: `list`, `show`, `show --json`,
/// its duration, its saved video, and a log that could not be folded into the database file.
@Suite("a recording ended by a full disk says so")
struct FullDiskEndingTests {
    /// Whether this process may mount a small tmpfs (root, in a mount namespace that allows it): a
    /// really full disk. Tried once.
    static let tmpfsAvailable: Bool = {
        guard let folder = try? TemporaryFolder() else { return false }
        defer { folder.remove() }
        guard (try? Binary.runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", folder.url.path]))?.status == 0 else {
            return false
        }
        _ = try? Binary.runProcess("/bin/umount", [folder.url.path])
        return true
    }()

    static var tmpfsReady: Bool { RecordingCommandTests.ready && tmpfsAvailable }

    @Test("the file-size limit, read as fast as possible with --save-video: list says ended early, show and show --json say by what with the frame count, the duration ends at the last stored frame, a cut video is not 'none left out'",
          .enabled(if: RecordingCommandTests.ready, RecordingCommandTests.reason))
    func endedEarlyIsTold() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let environment = ["GAZEREC_DATABASE": database]
        let result = try Binary.runProcess(
            "/bin/bash", ["-c", "ulimit -f 400; exec \"$GAZEREC\" start --input \"$CLIP\" --as-fast-as-possible --save-video"],
            environment: environment.merging(["GAZEREC": Binary.gazerec, "CLIP": RecordingCommandTests.clip]) { $1 })
        #expect(result.status == 1, "\(result.stderr)")
        let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(!id.isEmpty, "\(result.stderr)")

        let list = try Binary.run(["list"], environment: environment)
        let row = list.stdout.split(separator: "\n").first { $0.contains(id) } ?? ""
        #expect(row.hasSuffix("ended early"), "\(list.stdout)")

        let exported = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        let frames = exported["gazerec"]?["frames"]?.arrayValue ?? []
        let lastFrame = frames.compactMap { frame -> Double? in
            if case .number(let time)? = frame["timestamp"] { return time }
            return nil
        }.max() ?? 0
        guard case .number(let endTime)? = exported["endTime"] else { Issue.record("no endTime"); return }
        #expect(endTime <= lastFrame + 1e-6, "endTime \(endTime) after the last stored frame \(lastFrame)")

        let show = try Binary.run(["show", id], environment: environment)
        #expect(show.stdout.contains("Ended by") && show.stdout.contains("cannot record samples"), "\(show.stdout)")
        let video = show.stdout.split(separator: "\n").first { $0.hasPrefix("Saved video") }.map(String.init) ?? ""
        // Whichever file reached the limit first (the video's or the database's log), the line tells
        // the truth: a video short of the session's stored frames reads 'ended early', and 'none left
        // out' only when it holds every stored frame (the database may have stopped first).
        if let match = video.firstMatch(of: /, ([0-9]+) frames, none left out/) {
            #expect(Int(match.1)! >= frames.count, "\(video), \(frames.count) frames stored")
        } else {
            #expect(video.contains("of the session's \(frames.count) frames: the video ended early"), "\(video)")
        }

        let json = try JSONValue.parse(Array(try Binary.run(["show", "--json", id], environment: environment).stdoutData))
        guard case .string(let endedBy)? = json["endedBy"] else { Issue.record("no endedBy in show --json"); return }
        #expect(endedBy.contains("cannot record samples"))
        #expect(json["frames"] == .number(Double(frames.count)), "\(String(describing: json["frames"])) vs \(frames.count)")
        let listed = try JSONValue.parse(Array(try Binary.run(["list", "--json"], environment: environment).stdoutData))
        #expect(listed.arrayValue?.first?["endedBy"] == .string(endedBy))
    }

    @Test("a really full disk (a tmpfs): the log cannot be folded in; start says so on stderr and status after it, naming both ways to keep the data; with room again, list folds it in",
          .enabled(if: tmpfsReady, "needs root allowed to mount a tmpfs, ../shared/fixtures and the dlib model"))
    func unfoldedLogIsTold() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mountPoint = folder.path("disk")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try #require(try Binary.runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint]).status == 0)
        defer { _ = try? Binary.runProcess("/bin/umount", [mountPoint]) }
        let database = "\(mountPoint)/db.sqlite"
        let environment = ["GAZEREC_DATABASE": database]
        let result = try Binary.run(["start", "--input", RecordingCommandTests.clip], environment: environment)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("could not be folded into \(database)") && result.stderr.contains("gazerec backup"),
                "\(result.stderr)")
        let status = try Binary.run(["status"], environment: environment)
        #expect(status.stdout == "not recording\n")
        #expect(status.stderr.contains("\(database)-wal holds") && status.stderr.contains("gazerec backup"), "\(status.stderr)")
        let statusJSON = try JSONValue.parse(Array(try Binary.run(["status", "--json"], environment: environment).stdoutData))
        guard case .string(let warning)? = statusJSON["warning"] else { Issue.record("no warning in status --json"); return }
        #expect(warning.contains("-wal holds"))

        // Room again: the disk grows, and the next writing command folds the log in.
        #expect(try Binary.runProcess("/bin/mount", ["-o", "remount,size=8m", mountPoint]).status == 0)
        #expect(try Binary.run(["list"], environment: environment).status == 0)
        let after = try Binary.run(["status"], environment: environment)
        #expect(!after.stderr.contains("-wal holds"), "\(after.stderr)")
    }
}
