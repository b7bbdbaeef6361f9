import Foundation
import GazeModel
import SessionStore
import Testing
import TestSupport

/// A participant withdraws: `gazerec lab erase` on the server, `gazerec delete --app-id` on a station.
@Suite("withdrawing a participant from a lab server and a station", .serialized)
struct WithdrawalTests {
    /// A station database with two calibrations and three sessions: P07's two (one mapped by a
    /// calibration only it used, one by a calibration P08's session used too), P08's one, and a
    /// calibration named P07 that no session used.
    struct Station {
        let path: String
        var environment: [String: String] { ["GAZEREC_DATABASE": path] }
        let named = UUID().uuidString, onlyP07 = UUID().uuidString, shared = UUID().uuidString
        var p07: [String] = []
        var p08 = ""

        init(_ folder: TemporaryFolder) throws {
            path = folder.path("station.sqlite")
            let database = try SessionDatabase(path: path)
            for (id, name) in [(named, "P07"), (onlyP07, "morning"), (shared, "shared")] {
                let summary = CalibrationSummary(id: id, name: name, createdAtSeconds: 1_700_000_000, screenWidth: 1920,
                                                 screenHeight: 1080, pointCount: 9, accuracyPoints: nil, accuracyDegrees: nil)
                try database.saveCalibrations([(summary, "{\"id\":\"\(id)\",\"name\":\"\(name)\"}")], replace: false, source: "test")
            }
            p07 = [try Self.session(database, appID: "P07", calibration: onlyP07),
                   try Self.session(database, appID: "P07", calibration: shared)]
            p08 = try Self.session(database, appID: "P08", calibration: shared)
        }

        /// A closed session of 120 gaze samples whose gaze the calibration `calibration` mapped.
        static func session(_ database: SessionDatabase, appID: String, calibration: String) throws -> String {
            let id = UUID().uuidString
            let begin = 1_700_000_000.0
            let writer = try SessionWriter(
                database: database,
                header: SessionHeader(id: id, appID: appID, beginTimeSeconds: begin, endTimeSeconds: nil,
                                      deviceInfo: DeviceInfo(model: "test", screenWidth: 1920, screenHeight: 1080,
                                                             systemName: "Linux", systemVersion: "6")),
                blendShapeNames: [], recorderPID: 999_999)
            var batch = SampleBatchToAppend()
            batch.gaze = (0..<120).map { GazeSample(timestampSeconds: begin + Double($0) / 60, x: 100, y: 200, orientation: 3) }
            try writer.append(batch)
            let reference = CalibrationReference(id: calibration, name: nil, createdAtSeconds: 1_700_000_000, points: 9,
                                                 accuracyPoints: nil, accuracyDegrees: nil, viewing: nil)
            let gazerecExtension = SessionExtension(members: [
                .init(name: SessionExtension.Name.calibrationApplied, value: .calibrationApplied(true)),
                .init(name: SessionExtension.Name.calibration, value: .calibration(reference)),
            ])
            try writer.close(endTimeSeconds: begin + 2, gazerecExtension: gazerecExtension)
            return id
        }
    }

    @Test("lab erase --app-id removes the participant's sessions and the calibrations only they used, in one go; a later push of any of them is refused by the server, naming the withdrawal",
          .enabled(if: LabServerTests.admin != nil, LabServerTests.reason))
    func eraseOnTheServer() throws {
        let lab = try LabServerTests.Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let station = try Station(folder)

        let pushed = try Binary.run(["push", lab.station, "--all"], environment: station.environment)
        #expect(pushed.status == 0 && pushed.stderr.contains("calibrations: 3 sent"), "\(pushed.stderr)")

        // The server's own sessions cannot be deleted like a station's: the message says what to do.
        let refused = try Binary.run(["--database", lab.analysis, "delete", station.p07[0]])
        #expect(refused.status != 0 && refused.stderr.contains("gazerec lab erase"), "\(refused.stderr)")

        let erased = try Binary.run(["lab", "erase", "--app-id", "P07", "--server", lab.admin])
        #expect(erased.status == 0, "\(erased.stderr)")
        #expect(Set(erased.stdout.split(separator: "\n").map(String.init))
                == Set(station.p07 + [station.named, station.onlyP07]), "\(erased.stdout)")
        #expect(erased.stderr.contains("erased 2 sessions and 2 calibrations"), "\(erased.stderr)")
        #expect(try lab.value("SELECT string_agg(id, ',') FROM session") == station.p08)
        #expect(try lab.value("SELECT string_agg(id, ',') FROM calibration") == station.shared)
        let p07List = station.p07.map { "'\($0)'" }.joined(separator: ",")
        #expect(try lab.value("SELECT count(*) FROM gaze_sample WHERE session_id IN (\(p07List))") == "0")
        #expect(try lab.value("SELECT count(*) FROM session_document WHERE session_id IN (\(p07List))") == "0")
        #expect(try lab.value("SELECT count(*) FROM withdrawal") == "4")
        // Ids and time only.
        #expect(try lab.value("SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns "
                              + "WHERE table_name = 'withdrawal'") == "kind,id,withdrawn_at")

        // The station pushes again: the withdrawn ones are refused, one line each, and not stored.
        let again = try Binary.run(["push", lab.station, "--all"], environment: station.environment)
        #expect(again.status == 1, "\(again.stderr)")
        for (kind, id) in station.p07.map({ ("session", $0) }) + [("calibration", station.named), ("calibration", station.onlyP07)] {
            let lines = again.stderr.split(separator: "\n").filter { $0.contains("\(kind) \(id) was withdrawn from this lab server on ") }
            #expect(lines.count == 1, "\(kind) \(id): \(again.stderr)")
        }
        #expect(again.stderr.contains("calibrations: 0 sent, 1 already there unchanged, 2 withdrawn"), "\(again.stderr)")
        #expect(try lab.value("SELECT count(*) FROM session") == "1")
        #expect(try lab.value("SELECT count(*) FROM calibration") == "1")

        // The server refuses them whoever inserts them, not only gazerec's push.
        let direct = try LabServerTests.psql(lab.analysis, """
            INSERT INTO calibration (id, host, document) VALUES ('\(station.onlyP07)', 'h', '\\x7b7d')
            """)
        #expect(direct.status != 0 && direct.stderr.contains("was withdrawn"), "\(direct.stderr)")

        // Erasing again: nothing left, said so; an id the server never had is an error.
        let twice = try Binary.run(["lab", "erase", station.p07[0], "--server", lab.admin])
        #expect(twice.status == 0 && twice.stdout.isEmpty && twice.stderr.contains("was withdrawn before"), "\(twice.stderr)")
        let unknown = try Binary.run(["lab", "erase", "FFFFFFFF-0000-0000-0000-000000000000", "--server", lab.admin])
        #expect(unknown.status == 66 && unknown.stderr.contains("no session or calibration FFFFFFFF"), "\(unknown.stderr)")
        let station2 = try Binary.run(["lab", "erase", station.p08, "--server", lab.station])
        #expect(station2.status == 1, "a station may not erase: \(station2.stderr)")
        #expect(try lab.value("SELECT count(*) FROM session") == "1")

        // Deleted on the station too, the next push is clean.
        let local = try Binary.run(["delete", "--app-id", "P07"], environment: station.environment)
        #expect(local.status == 0, "\(local.stderr)")
        let clean = try Binary.run(["push", lab.station, "--all"], environment: station.environment)
        #expect(clean.status == 0 && clean.stderr.contains("calibrations: 0 sent, 1 already there unchanged"), "\(clean.stderr)")
    }

    @Test("lab erase --app-id erases the calibration named for the participant even where another participant's session used it, names those sessions, and keeps them",
          .enabled(if: LabServerTests.admin != nil, LabServerTests.reason))
    func eraseNamedCalibrationOthersUsed() throws {
        let lab = try LabServerTests.Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let station = try Station(folder)
        // Given P08 also recorded with the calibration named P07.
        let borrowed = try Station.session(try SessionDatabase(path: station.path), appID: "P08", calibration: station.named)
        let pushed = try Binary.run(["push", lab.station, "--all"], environment: station.environment)
        #expect(pushed.status == 0, "\(pushed.stderr)")

        let erased = try Binary.run(["lab", "erase", "--app-id", "P07", "--server", lab.admin])
        #expect(erased.status == 0, "\(erased.stderr)")
        #expect(Set(erased.stdout.split(separator: "\n").map(String.init))
                == Set(station.p07 + [station.named, station.onlyP07]), "\(erased.stdout)")
        #expect(try lab.value("SELECT string_agg(id, ',' ORDER BY id) FROM session") == [station.p08, borrowed].sorted().joined(separator: ","))
        let notes = erased.stderr.split(separator: "\n").filter { $0.contains("calibration \(station.named) was named P07") }
        #expect(notes.count == 1 && notes[0].contains("1 kept session of other app ids (\(borrowed))"), "\(erased.stderr)")
    }

    @Test("delete --app-id removes the participant's sessions, the calibrations named for them and those only they used")
    func deleteLocally() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let station = try Station(folder)

        let deleted = try Binary.run(["delete", "--app-id", "P07"], environment: station.environment)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(Set(deleted.stdout.split(separator: "\n").map(String.init))
                == Set(station.p07 + [station.named, station.onlyP07]), "\(deleted.stdout)")
        #expect(deleted.stderr.contains("deleted 2 sessions and 2 calibrations of P07"), "\(deleted.stderr)")
        let database = try SessionDatabase.openForReading(path: station.path)
        #expect(try database.sessionIDs() == [station.p08])
        #expect(try database.calibrations().map(\.id) == [station.shared])

        let none = try Binary.run(["delete", "--app-id", "P07"], environment: station.environment)
        #expect(none.status == 66 && none.stderr.contains("no session in") && none.stderr.contains("'P07'"), "\(none.stderr)")
    }

    @Test("delete --app-id deletes the calibration named for the participant even where another participant's session used it, and names those sessions on stderr")
    func deleteNamedCalibrationOthersUsed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let station = try Station(folder)
        // Given P08 recorded with the calibration named P07 (a calibration reused across participants).
        let database = try SessionDatabase(path: station.path)
        let borrowed = try Station.session(database, appID: "P08", calibration: station.named)

        let deleted = try Binary.run(["delete", "--app-id", "P07"], environment: station.environment)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(Set(deleted.stdout.split(separator: "\n").map(String.init))
                == Set(station.p07 + [station.named, station.onlyP07]), "\(deleted.stdout)")
        // Then P07's calibration is gone, P08's sessions stay, and stderr says which of them it had mapped.
        let after = try SessionDatabase.openForReading(path: station.path)
        #expect(Set(try after.sessionIDs()) == [station.p08, borrowed])
        #expect(try after.calibrations().map(\.id) == [station.shared])
        let notes = deleted.stderr.split(separator: "\n").filter { $0.contains("calibration \(station.named) was named P07") }
        #expect(notes.count == 1 && notes[0].contains("1 kept session of other app ids (\(borrowed))")
                && notes[0].contains("recalibrate and validate can no longer use it"), "\(deleted.stderr)")
        #expect(!deleted.stderr.contains("calibration \(station.onlyP07) was named"), "\(deleted.stderr)")
    }
}
