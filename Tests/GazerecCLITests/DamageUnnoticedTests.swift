import Foundation
import GRDB
import Testing
import TestSupport

/// Damage that used to crash a command or pass unnoticed (issue 45, items 1, 2, 4 and 5): a
/// recorded database and the iOS fixture, damaged behind gazerec's back as a disk or a copy would.
@Suite("Damage that went unnoticed", .serialized)
struct DamageUnnoticedTests {
    typealias Work = RecordingCommandTests.Workspace
    static let ios = DamagedDatabaseTests.ios
    static let ready = RecordingCommandTests.ready
    static let reason = RecordingCommandTests.reason

    /// A database holding one recording of the blink clip (500 frames, blinks, two blend shapes,
    /// no calibration), recorded once per test run; each test damages a copy. Nil when it failed.
    static let recorded: (path: String, id: String)? = {
        guard ready, let folder = try? TemporaryFolder() else { return nil }
        let database = folder.path("recorded.sqlite")
        guard let result = try? Binary.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--as-fast-as-possible",
                                            "--calibration", "none", "--blend-shapes", "eyeBlink_L,eyeBlink_R"],
                                           environment: ["GAZEREC_DATABASE": database]), result.status == 0 else { return nil }
        return (database, result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }()

    /// A workspace with a copy of the recorded database; its session id.
    static func recordedCopy() throws -> (Work, String) {
        let recorded = try #require(recorded, "recording the blink clip failed")
        let work = try Work()
        try FileManager.default.copyItem(atPath: recorded.path, toPath: work.database)
        return (work, recorded.id)
    }

    /// SQL run on the database behind gazerec's back.
    static func execute(_ work: Work, _ sql: String) throws {
        let queue = try DatabaseQueue(path: work.database)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    /// The page numbers of `table`'s pages of `type` (`leaf` or `internal`), root first, and the page size.
    static func pages(_ work: Work, _ table: String, _ type: String) throws -> (pages: [Int], size: Int) {
        let queue = try DatabaseQueue(path: work.database)
        defer { try? queue.close() }
        return try queue.read { db in
            (try Int.fetchAll(db, sql: "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = ? ORDER BY path",
                              arguments: [table, type]),
             try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
        }
    }

    /// Changes the file's bytes at `offset` with `change` (given the bytes there, returns new ones).
    static func patch(_ work: Work, offset: Int, count: Int, _ change: ([UInt8]) -> [UInt8]) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: work.database))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let bytes = [UInt8](try handle.read(upToCount: count) ?? Data())
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(change(bytes)))
    }

    /// Every reading command of session `id`, as the trial ran them.
    static func readers(_ id: String, _ work: Work) -> [[String]] {
        [["show", id], ["export", id], ["export", "--format", "csv", id], ["fixations", id],
         ["plot", id, "--output", work.folder.path("plot.svg"), "--scanpath"], ["replay", id],
         ["stimulus", "timeline", id, "--stimulus", Fixtures.path("faces/astronaut.png"), "--rect", "0,0,720,720"]]
    }

    @Test("800 seeded random bytes over the session row in its page: no command crashes (item 1)", .enabled(if: ready, reason))
    func randomBytesOverSessionRow() throws {
        let (work, id) = try Self.recordedCopy()
        defer { work.folder.remove() }
        let (pages, size) = try Self.pages(work, "session", "leaf")
        let page = (try #require(pages.first) - 1) * size
        // The trial wrote at 2,500 into the page, where its session row began; here the row's cell
        // is found from the page's cell pointer, and the bytes start 100 before it.
        var cell = 0
        try Self.patch(work, offset: page, count: 12) { bytes in
            cell = Int(bytes[8]) << 8 | Int(bytes[9])
            return bytes
        }
        let start = max(12, cell - 100), count = min(800, size - start)
        var generator = SeededBytes(seed: 45)
        try Self.patch(work, offset: page + start, count: count) { _ in (0..<count).map { _ in generator.next() } }
        for arguments in Self.readers(id, work) + [["check"], ["list"]] {
            let result = try work.run(arguments)
            // A process killed by a signal reports the signal's number (4 for SIGILL) here.
            #expect([0, 1, 64].contains(result.status) && !result.stderr.contains("Fatal error"),
                    "\(arguments) died: exit \(result.status) \(result.stderr)")
            #expect(result.status == 0 || !result.stderr.isEmpty, "\(arguments): exit \(result.status) without a word")
        }
    }

    @Test("the session row gone while its id index names it: a damaged session, never a crash (item 1)",
          .enabled(if: ready, reason))
    func sessionRowMissing() throws {
        let (work, id) = try Self.recordedCopy()
        defer { work.folder.remove() }
        // The table's leaf cell: payload length (varint), then the rowid (1, one byte); rowid 9 hides the row.
        let (pages, size) = try Self.pages(work, "session", "leaf")
        let start = (try #require(pages.first) - 1) * size
        var cell = 0
        try Self.patch(work, offset: start, count: size) { bytes in
            cell = Int(bytes[8]) << 8 | Int(bytes[9])
            return bytes
        }
        try Self.patch(work, offset: start + cell, count: 10) { bytes in
            var bytes = bytes
            let rowid = bytes.firstIndex { $0 < 0x80 }! + 1  // after the payload length's last byte
            bytes[rowid] = 9
            return bytes
        }
        for arguments in [["export", id], ["export", "--format", "csv", id], ["stimulus", "timeline", id, "--stimulus",
                                                                              Fixtures.path("faces/astronaut.png"), "--rect", "0,0,720,720"]] {
            let result = try work.run(arguments)
            #expect(result.status == 1, "\(arguments): exit \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("is damaged: its session row is missing"), "\(arguments): \(result.stderr)")
        }
    }

    @Test("the frame table's interior page loses its last child: check names the session, show refuses (item 2)",
          .enabled(if: ready, reason))
    func frameInteriorPage() throws {
        let (work, id) = try Self.recordedCopy()
        defer { work.folder.remove() }
        #expect(try work.run(["show", id]).stdout.contains(" 500, "), "the clip has 500 frames")
        let (pages, size) = try Self.pages(work, "frameSample", "internal")
        let root = (try #require(pages.first, "the frame table has no interior page") - 1) * size
        // An index b-tree's interior page: cell count at 3, right child at 8, cell pointers from 12;
        // each cell starts with its left child. The last cell's left child becomes the right child.
        try Self.patch(work, offset: root, count: size) { bytes in
            var bytes = bytes
            let cells = Int(bytes[3]) << 8 | Int(bytes[4])
            let last = Int(bytes[12 + 2 * (cells - 1)]) << 8 | Int(bytes[13 + 2 * (cells - 1)])
            bytes[8..<12] = bytes[last..<last + 4]
            bytes[3] = UInt8((cells - 1) >> 8)
            bytes[4] = UInt8((cells - 1) & 0xFF)
            return bytes
        }
        let check = try work.run(["check"])
        #expect(check.status == 1 && check.stdout == id + "\n", "\(check.stdout) \(check.stderr)")
        #expect(check.stderr.contains("frames missing"), "\(check.stderr)")
        let show = try work.run(["show", id])
        #expect(show.status == 1 && show.stdout.isEmpty && show.stderr.contains("session \(id) in \(work.database) is damaged"),
                "\(show.status) \(show.stderr)")
    }

    @Test("SQLite finds pages corrupt: check names the session stored before series lengths were kept, clears the other (item 2)",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func unclearedSessionNamed() throws {
        let work = try DamagedDatabaseTests.twoSessions()
        defer { work.folder.remove() }
        // The iOS session as an earlier gazerec stored it (no lengths), and pages of no session's to damage.
        try Self.execute(work, """
            UPDATE session SET seriesLengths = NULL WHERE id = '\(Self.ios)';
            CREATE TABLE unrelated (x BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
            INSERT INTO unrelated SELECT randomblob(200) FROM n;
            """)
        #expect(try work.run(["check"]).status == 0)
        let (pages, size) = try Self.pages(work, "unrelated", "internal")
        try Self.patch(work, offset: (try #require(pages.first) - 1) * size, count: size) { $0.map { _ in 0 } }
        let check = try work.run(["check"])
        #expect(check.status == 1 && check.stdout == Self.ios + "\n", "\(check.stdout) \(check.stderr)")
        #expect(check.stderr.contains("session \(Self.ios) in \(work.database) is damaged: SQLite reports pages of the file corrupt, "
                                      + "and this session was stored before gazerec kept the length of each series"), "\(check.stderr)")
        #expect(try work.run(["show", DamagedDatabaseTests.other]).status == 0)
    }

    @Test("the last row of a series deleted: check, show and export name the session (item 5)",
          .enabled(if: ready, reason),
          arguments: [("frameSample", "sessionRowID", "frames"), ("blinkEvent", "sessionRowID", "blink events"),
                      ("blendShapeSample", "seriesRowID", "eyeBlink_L samples")])
    func lostTail(table: String, owner: String, series: String) throws {
        let (work, id) = try Self.recordedCopy()
        defer { work.folder.remove() }
        let ownerRowID = owner == "seriesRowID" ? "(SELECT rowid FROM blendShapeSeries WHERE name = 'eyeBlink_L')" : "1"
        try Self.execute(work, """
            DELETE FROM \(table) WHERE \(owner) = \(ownerRowID)
                AND seq = (SELECT MAX(seq) FROM \(table) WHERE \(owner) = \(ownerRowID))
            """)
        let check = try work.run(["check"])
        #expect(check.status == 1 && check.stdout == id + "\n", "\(check.stdout) \(check.stderr)")
        #expect(check.stderr.contains("is damaged: 1 of ") && check.stderr.contains(" \(series) missing"), "\(check.stderr)")
        for arguments in [["show", id], ["export", id]] {
            let result = try work.run(arguments)
            #expect(result.status == 1 && result.stdout.isEmpty && result.stderr.contains(" \(series) missing"),
                    "\(arguments): \(result.status) \(result.stderr)")
        }
    }

    @Test("the last gaze sample of an imported session deleted: check names it (item 5)",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func lostGazeTail() throws {
        let work = try Work()
        defer { work.folder.remove() }
        #expect(try work.run(["import", Fixtures.iosSession]).status == 0)
        try Self.execute(work, "DELETE FROM gazeSample WHERE seq = (SELECT MAX(seq) FROM gazeSample)")
        let check = try work.run(["check"])
        #expect(check.status == 1 && check.stdout == Self.ios + "\n", "\(check.stdout) \(check.stderr)")
        #expect(check.stderr.contains("is damaged: 1 of 380 gaze samples missing"), "\(check.stderr)")
    }

    @Test("fixations, plot, replay and stimulus refuse a session that show calls damaged (item 4)",
          .enabled(if: Fixtures.available, Fixtures.missingReason),
          arguments: ["middle", "tail"])
    func readersRefuse(where place: String) throws {
        let work = try Work()
        defer { work.folder.remove() }
        #expect(try work.run(["import", Fixtures.iosSession]).status == 0)
        try Self.execute(work, place == "middle" ? "DELETE FROM gazeSample WHERE seq = 190"
                                                 : "DELETE FROM gazeSample WHERE seq = (SELECT MAX(seq) FROM gazeSample)")
        let damage = "session \(Self.ios) in \(work.database) is damaged: 1 of 380 gaze samples missing"
        for arguments in Self.readers(Self.ios, work) {
            let result = try work.run(arguments)
            #expect(result.status == 1 && result.stdout.isEmpty, "\(arguments): exit \(result.status)")
            #expect(result.stderr.contains(damage), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: work.folder.path("plot.svg")))
    }
}

/// A seeded byte stream (SplitMix64), so a damage is the same on every run.
struct SeededBytes {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt8 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return UInt8(truncatingIfNeeded: z ^ (z >> 31))
    }
}
