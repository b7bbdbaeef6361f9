import Foundation
import GazeModel
import SessionStore
import Testing
import TestSupport

/// What `gazerec lab erase` leaves in the server's files, and what a station may read of the
/// withdrawals.
@Suite("an erased participant leaves no bytes in the server's data files", .serialized)
struct ErasureTraceTests {
    /// The files of `lab`'s database in the server's data folder (the cluster's `base/<oid>/`),
    /// leaving out those whose names begin with one of `except` (relation file nodes).
    static func dataFiles(_ lab: LabServerTests.Lab, except: [String]) throws -> [String] {
        let admin = lab.admin
        let dataDirectory = try LabServerTests.psql(admin, "SHOW data_directory", flags: ["-tA"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let oid = try LabServerTests.psql(admin, "SELECT oid FROM pg_database WHERE datname = current_database()", flags: ["-tA"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let folder = "\(dataDirectory)/base/\(oid)"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        return names.filter { name in !except.contains { name == $0 || name.hasPrefix($0 + "_") || name.hasPrefix($0 + ".") } }
            .map { "\(folder)/\($0)" }
    }

    /// Which of `needles` occur in any of `files`, with the files they occur in.
    static func occurrences(of needles: [String], in files: [String]) -> [String: [String]] {
        var found: [String: [String]] = [:]
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            for needle in needles where data.range(of: Data(needle.utf8)) != nil {
                found[needle, default: []].append((file as NSString).lastPathComponent)
            }
        }
        return found
    }

    @Test("lab erase --app-id, then a CHECKPOINT: neither the label nor the erased ids are in the database's files (but the withdrawal table's, which keeps the ids by design); a station cannot read the withdrawal table, yet a push of a withdrawn id is refused",
          .enabled(if: LabServerTests.admin != nil, LabServerTests.reason))
    func noBytesLeft() throws {
        let lab = try LabServerTests.Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let label = "P10-\(lab.suffix)"
        let path = folder.path("station.sqlite")
        let database = try SessionDatabase(path: path)
        let calibration = UUID().uuidString
        let erased = [try WithdrawalTests.Station.session(database, appID: label, calibration: calibration),
                      try WithdrawalTests.Station.session(database, appID: label, calibration: calibration)]
        let kept = try WithdrawalTests.Station.session(database, appID: "other-\(lab.suffix)", calibration: calibration)
        let environment = ["GAZEREC_DATABASE": path]
        let pushed = try Binary.run(["push", lab.station, "--all"], environment: environment)
        #expect(pushed.status == 0, "\(pushed.stderr)")

        // Before: the grep finds them (the search works on these files).
        #expect(try LabServerTests.psql(lab.admin, "CHECKPOINT").status == 0)
        let before = Self.occurrences(of: [label] + erased, in: try Self.dataFiles(lab, except: []))
        #expect(before.count == 3, "\(before)")

        let erase = try Binary.run(["lab", "erase", "--app-id", label, "--server", lab.admin])
        #expect(erase.status == 0, "\(erase.stderr)")
        #expect(try LabServerTests.psql(lab.admin, "CHECKPOINT").status == 0)
        let withdrawal = try ["withdrawal", "withdrawal_pkey"].map { relation in
            try LabServerTests.psql(lab.admin, "SELECT pg_relation_filenode('\(relation)')", flags: ["-tA"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let files = try Self.dataFiles(lab, except: withdrawal)
        #expect(Self.occurrences(of: [label, "\"appID\":\"\(label)\""] + erased, in: files).isEmpty,
                "\(Self.occurrences(of: [label] + erased, in: files))")
        #expect(Self.occurrences(of: [kept], in: files).count == 1, "the session kept is still stored")

        // A station asks about the ids it pushes, no more.
        let read = try LabServerTests.psql(lab.station, "SELECT count(*) FROM withdrawal")
        #expect(read.status != 0 && read.stderr.contains("permission denied"), "\(read.stderr)")
        let asked = try LabServerTests.psql(lab.station, "SELECT gazerec_refuse_withdrawn('session', '\(erased[0])')")
        #expect(asked.status != 0 && asked.stderr.contains("was withdrawn from this lab server"), "\(asked.stderr)")
        let again = try Binary.run(["push", lab.station, erased[0]], environment: environment)
        #expect(again.status == 1 && again.stderr.contains("was withdrawn from this lab server"), "\(again.stderr)")
        #expect(try LabServerTests.psql(lab.station, "SELECT gazerec_refuse_withdrawn('session', '\(kept)')").status == 0)
    }
}
