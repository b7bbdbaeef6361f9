import Foundation
import GazeModel
import Testing
import TestSupport
@testable import Recorder
@testable import SessionStore

/// Markers read from a regular file while recording: followed from its end, as `tail -F` does.
@Suite("Marker feed")
struct MarkerFeedTests {
    /// A session to put markers into, in an in-memory store.
    static func recording(_ database: SessionDatabase) throws -> RecordingSession {
        try RecordingSessionTests().session(database, clock: RecordingSessionTests.ManualClock())
    }

    /// A new recording in `database` and a feed following `log` into it on a fixed clock, its
    /// warnings collected.
    static func feed(following log: String, into database: SessionDatabase) throws
        -> (feed: MarkerFeed, session: RecordingSession, warnings: WarningLog) {
        let session = try recording(database)
        let warnings = WarningLog()
        let feed = MarkerFeed(input: try MarkerFeed.Input.open(path: log), database: database, sessionID: session.id,
                              clock: { 1_790_000_005 }, warning: { warnings.add($0) })
        return (feed, session, warnings)
    }

    /// Appends `text` to the file at `path`, as a logging program does.
    static func append(_ text: String, to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// Waits up to 5 s for the session to hold `count` markers; its markers then.
    static func markers(_ database: SessionDatabase, id: String, count: Int) throws -> [Marker] {
        let deadline = Date().addingTimeInterval(5)
        var markers = try database.markers(id: id)
        while markers.count < count && Date() < deadline {
            usleep(20_000)
            markers = try database.markers(id: id)
        }
        return markers
    }

    @Test("a log file with earlier lines: they are skipped, and the feed says so once, counting them")
    func saysEarlierLinesAreSkipped() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let log = folder.path("markers.log")
        try "old-run-1\nold-run-2\tnot json\nold-run-3".write(toFile: log, atomically: true, encoding: .utf8)
        let database = try SessionDatabase()
        let (feed, session, warnings) = try Self.feed(following: log, into: database)
        feed.start()
        try Self.append("\nstimulus-A\n", to: log)
        _ = try Self.markers(database, id: session.id, count: 1)
        feed.finish()
        #expect(warnings.lines == ["\(log) already holds 3 lines from before this recording: they are skipped, "
                                   + "and only lines added from now on become markers"])
    }

    @Test("a log file's earlier lines are not markers; lines appended after the start are, each at its arrival")
    func followedFromItsEnd() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Given: a log that already holds two runs' worth of lines
        let log = folder.path("markers.log")
        try "old-run-1\nold-run-2\tnot json\n".write(toFile: log, atomically: true, encoding: .utf8)
        let database = try SessionDatabase()
        let (feed, session, _) = try Self.feed(following: log, into: database)
        // When: the feed starts and one line is appended, then another
        feed.start()
        try Self.append("stimulus-A\n", to: log)
        _ = try Self.markers(database, id: session.id, count: 1)
        try Self.append("stimulus-B\t{\"trial\": 2}\n", to: log)
        let markers = try Self.markers(database, id: session.id, count: 2)
        let stored = feed.finish()
        // Then: only the appended lines became markers
        #expect(markers.map(\.label) == ["stimulus-A", "stimulus-B"])
        #expect(markers.map(\.timestampSeconds) == [1_790_000_005, 1_790_000_005])
        #expect(markers.last?.dataJSON == "{\"trial\":2}")
        #expect(stored == 2)
    }

    @Test("a line that never ends is not held in memory: past the line limit it is skipped up to its end, and the next line is a marker")
    func endlessLine() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let log = folder.path("markers.log")
        try "".write(toFile: log, atomically: true, encoding: .utf8)
        let database = try SessionDatabase()
        let (feed, session, warnings) = try Self.feed(following: log, into: database)
        feed.start()
        // Given: a writer that sends 4 MiB without a newline, in pieces, then ends that line and writes another
        let piece = String(repeating: "x", count: 64 * 1024)
        for _ in 0..<64 { try Self.append(piece, to: log) }
        try Self.append("\nstimulus-A\n", to: log)
        let markers = try Self.markers(database, id: session.id, count: 1)
        feed.finish()
        // Then: the endless line is skipped once it passes the limit, with one warning naming its place and the limit
        #expect(markers.map(\.label) == ["stimulus-A"])
        let lines = warnings.lines
        #expect(lines.count == 1 && lines[0].contains("markers.log:1") && lines[0].contains("longer than 256 KiB"), "\(lines)")
    }

    /// Warnings the feed gives, from its own thread.
    final class WarningLog: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        func add(_ line: String) { lock.lock(); stored.append(line); lock.unlock() }
        var lines: [String] { lock.lock(); defer { lock.unlock() }; return stored }
    }

    @Test("a followed log truncated or replaced under its name is read again from its start")
    func rotated() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let log = folder.path("markers.log")
        try "before\n".write(toFile: log, atomically: true, encoding: .utf8)
        let database = try SessionDatabase()
        let session = try Self.recording(database)
        let feed = MarkerFeed(input: try MarkerFeed.Input.open(path: log), database: database, sessionID: session.id,
                              warning: { _ in })
        feed.start()
        defer { feed.finish() }
        try Self.append("first\n", to: log)
        _ = try Self.markers(database, id: session.id, count: 1)
        // Truncated, then written afresh (a shorter file than the feed has read).
        try FileHandle(forWritingAtPath: log)!.truncate(atOffset: 0)
        usleep(100_000)
        try Self.append("after-truncation\n", to: log)
        _ = try Self.markers(database, id: session.id, count: 2)
        // Replaced: a new file renamed over the old name (a rotated log).
        let fresh = folder.path("markers.new")
        try "after-rotation\n".write(toFile: fresh, atomically: false, encoding: .utf8)
        #expect(rename(fresh, log) == 0)
        let markers = try Self.markers(database, id: session.id, count: 3)
        #expect(markers.map(\.label) == ["first", "after-truncation", "after-rotation"])
    }
}
