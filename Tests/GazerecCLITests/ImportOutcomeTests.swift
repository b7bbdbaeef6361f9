import Foundation
import Testing
import TestSupport

/// What `gazerec import` leaves and says when it fails or skips: no database file it had to create
/// for nothing, and a summary that counts only the samples it stored.
@Suite("import: what a failed or skipping import leaves and says")
struct ImportOutcomeTests {
    /// A session document of `gaze` scan-path samples and `blinks` eyeBlink_L samples.
    static func document(id: String, gaze: Int, blinks: Int) -> String {
        let samples = (0..<gaze).map { #"{"x":\#($0),"y":2,"timestamp":\#(1_700_000_000 + $0),"orientation":3}"# }
        let blendShapes = (0..<blinks).map {
            #"{"blendShapeLocation":"eyeBlink_L","value":0.5,"timestamp":\#(1_700_000_000 + $0),"orientation":3}"#
        }
        return #"{"id":"\#(id)","appID":"trial","beginTime":1700000000,"endTime":1700000100,"#
            + #""deviceInfo":{"model":"m","screenSize":[834,1194],"systemName":"iOS","systemVersion":"17"},"#
            + #""scanPath":[\#(samples.joined(separator: ","))],"blendShapes":{"eyeBlink_L":[\#(blendShapes.joined(separator: ","))]}}"#
    }

    @Test("a failed import into a database that did not exist leaves no file (nor -wal, -shm); the folder it names stays as it was")
    func failedImportCreatesNoDatabase() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let bad = work.folder.path("bad.json")
        try Data(#"{"id":"not a uuid"}"#.utf8).write(to: URL(fileURLWithPath: bad))
        let result = try work.run(["import", bad])
        #expect(result.status != 0, "\(result.stderr)")
        #expect(result.stderr.contains("bad.json"), "\(result.stderr)")
        for suffix in ["", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: work.database + suffix), "db.sqlite\(suffix) was left behind")
        }

        // A database that exists is left in place by a failed import, its sessions kept.
        let stored = try work.storeSession(samples: 10)
        let again = try work.run(["import", bad])
        #expect(again.status != 0)
        #expect(try work.run(["list", "--ids"]).stdout.contains(stored))
    }

    @Test("import --skip-existing counts only the samples of the sessions it stored, not of those it skipped")
    func skippedSamplesNotCounted() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let first = work.folder.path("first.json"), second = work.folder.path("second.json")
        try Data(Self.document(id: "3BE54760-F1E8-4799-A3CB-78806270E72A", gaze: 7, blinks: 5).utf8)
            .write(to: URL(fileURLWithPath: first))
        try Data(Self.document(id: "4BE54760-F1E8-4799-A3CB-78806270E72A", gaze: 3, blinks: 2).utf8)
            .write(to: URL(fileURLWithPath: second))
        let initial = try work.run(["import", first])
        #expect(initial.status == 0 && initial.stderr.contains("(7 gaze, 5 blend-shape samples)"), "\(initial.stderr)")

        let skipping = try work.run(["import", "--skip-existing", first, second])
        #expect(skipping.status == 0, "\(skipping.stderr)")
        #expect(skipping.stderr.contains("imported 1 session, skipped 1 already stored (3 gaze, 2 blend-shape samples)"),
                "\(skipping.stderr)")
    }
}
