import Foundation
import GazeModel
import GRDB
import Testing
import TestSupport
@testable import SessionStore

/// `sessionColumns(id:)`, the column-by-column read of what the review page draws, against
/// `storedSession(id:)` on a real recording: the blink clip recorded by the built binary (with
/// expressions when their set-up is installed), a marker added, the iOS export's scan path
/// imported beside it.
@Suite("Session columns", .serialized)
struct SessionColumnsTests {
    static let modelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static var ready: Bool {
        Fixtures.available && FileManager.default.fileExists(atPath: modelPath) && FileManager.default.isExecutableFile(atPath: Binary.gazerec)
    }
    static let reason: Comment = "needs ../shared/fixtures, the dlib model (apt-get install libdlib-data) and the built gazerec"

    /// Every column `columns` holds is the value `stored` holds at the same index.
    static func expectSame(_ columns: SessionColumns, _ stored: StoredSession) {
        #expect(columns.header == stored.header)
        #expect(columns.gaze == stored.gaze)
        let frames = stored.frames
        #expect(columns.frames.timestamps == frames.map(\.timestampSeconds))
        #expect(columns.frames.trackingStates == frames.map(\.trackingState))
        #expect(columns.frames.opennessLeft == frames.map(\.opennessLeft))
        #expect(columns.frames.opennessRight == frames.map(\.opennessRight))
        #expect(columns.frames.yawDegrees == frames.map { $0.headPose?.yawDegrees })
        #expect(columns.frames.pitchDegrees == frames.map { $0.headPose?.pitchDegrees })
        #expect(columns.frames.rollDegrees == frames.map { $0.headPose?.rollDegrees })
        #expect(columns.blinks == stored.blinks)
        #expect(columns.markers == stored.markers)
        #expect(columns.expressions.timestamps == stored.expressions.map(\.timestampSeconds))
        for name in ExpressionName.allCases {
            #expect(columns.expressions.values(name) == stored.expressions.map { $0.probabilities[name] }, "\(name)")
        }
        #expect(columns.smile.map(\.timestampSeconds) == stored.smile.map(\.timestampSeconds))
        #expect(columns.smile.map(\.value) == stored.smile.map(\.value))
    }

    @Test("a recorded session's columns are storedSession's values, column for column", .enabled(if: ready, reason))
    func recordedSession() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("db.sqlite")
        let record = ["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--as-fast-as-possible", "--calibration", "none",
                      "--duration", "6"]
        var recorded = try Binary.run(record + ["--expressions"], environment: ["GAZEREC_DATABASE": path])
        let withExpressions = recorded.status == 0
        if !withExpressions {
            recorded = try Binary.run(record, environment: ["GAZEREC_DATABASE": path])
        }
        try #require(recorded.status == 0, "\(recorded.stderr)")
        let id = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let imported = try Binary.run(["import", Fixtures.iosSession], environment: ["GAZEREC_DATABASE": path])
        try #require(imported.status == 0, "\(imported.stderr)")
        let database = try SessionDatabase(path: path)
        try database.addMarker(Marker(timestampSeconds: try database.storedSession(id: id).header.beginTimeSeconds + 1.5, label: "half"),
                               sessionID: id)

        let columns = try database.sessionColumns(id: id), stored = try database.storedSession(id: id)
        // What the recording holds, so that the comparison covers each kind of value.
        #expect(columns.frames.count > 300)
        #expect(columns.frames.trackingStates.contains(.normal))
        #expect(columns.frames.opennessLeft.contains { $0 != nil } && columns.frames.yawDegrees.contains { $0 != nil })
        #expect(!columns.blinks.isEmpty && columns.markers.count == 1)
        #expect(!withExpressions || (!columns.expressions.timestamps.isEmpty && !columns.smile.isEmpty))
        Self.expectSame(columns, stored)

        for other in try database.sessionIDs() where other != id {
            let scanPath = try database.sessionColumns(id: other)
            #expect(scanPath.gaze.count > 100)
            Self.expectSame(scanPath, try database.storedSession(id: other))
        }
    }

    @Test("a row missing from a series it reads, or from one it does not, refuses the session as damage(id:) words it",
          arguments: [("frameSample", "sessionRowID", 4, "1 of 10 frames missing"),
                      ("expressionSample", "sessionRowID", 0, "1 of 9 expression samples missing"),
                      ("blendShapeSample", "seriesRowID", 2, "1 of 9 mouthSmile_L samples missing"),
                      ("marker", "sessionRowID", 0, "1 of 2 markers missing")])
    func damaged(table: String, owner: String, seq: Int, detail: String) throws {
        let (store, id) = try ExpressionStoreTests.store()
        try store.addMarker(Marker(timestampSeconds: ExpressionStoreTests.begin + 0.8, label: "second", dataJSON: nil), sessionID: id)
        Self.expectSame(try store.sessionColumns(id: id), try store.storedSession(id: id))
        try store.writer.write { db in
            let ownerRowID = owner == "seriesRowID"
                ? try Int64.fetchOne(db, sql: "SELECT rowid FROM blendShapeSeries WHERE name = 'mouthSmile_L'")
                : try Int64.fetchOne(db, sql: "SELECT rowid FROM session WHERE id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM \(table) WHERE \(owner) = ? AND seq = ?", arguments: [ownerRowID, seq])
        }
        #expect(throws: StoreError.damagedSession(id: id, databasePath: store.path, detail: detail)) { try store.sessionColumns(id: id) }
    }

    @Test("a frame with part of a head pose is an error naming the frame, as storedSession says it")
    func partialPose() throws {
        let (store, id) = try ExpressionStoreTests.store()
        try store.writer.write { db in
            try db.execute(sql: "UPDATE frameSample SET yawDegrees = 3 WHERE seq = 2")
        }
        let error = StoreError.database(action: "read the frames of session \(id)", path: store.path,
                                        reason: "frame 2: a head pose needs all of yawDegrees, pitchDegrees, rollDegrees, tx, ty and tz")
        #expect(throws: error) { try store.storedSession(id: id) }
        #expect(throws: error) { try store.sessionColumns(id: id) }
    }
}
