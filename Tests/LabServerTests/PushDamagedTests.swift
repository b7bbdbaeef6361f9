import Foundation
import Testing
import TestSupport

extension LabServerTests {
    @Test("push --all: a damaged session is named and not sent, the sound ones after it go, a summary, exit 1 (issue 45, item 6)",
          .enabled(if: admin != nil, reason), .enabled(if: Fixtures.available, Fixtures.missingReason))
    func pushAllPastDamaged() throws {
        let lab = try Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The iOS fixture (begun in 2021) comes first, the constructed session after it.
        let (environment, ids) = try Self.station(folder, name: "station", samples: 300)
        let (damaged, sound) = (ids[0], ids[1])
        let removed = try Binary.runProcess("/usr/bin/sqlite3", [folder.path("station.sqlite"), """
            DELETE FROM gazeSample WHERE seq = 100 AND sessionRowID = (SELECT rowid FROM session WHERE id = '\(damaged)')
            """])
        try #require(removed.status == 0, "\(removed.stderr)")

        let pushed = try Binary.run(["push", lab.station, "--all"], environment: environment)
        #expect(pushed.status == 1)
        #expect(pushed.stdout == "\(sound)\tadded\n", "\(pushed.stdout)")
        #expect(pushed.stderr.contains("session \(damaged) in \(folder.path("station.sqlite")) is damaged: 1 of 380 gaze samples missing"),
                "\(pushed.stderr)")
        #expect(pushed.stderr.contains("pushed 1 session to \(lab.station)") && pushed.stderr.contains("1 damaged, not sent: \(damaged)"),
                "\(pushed.stderr)")
        #expect(try lab.value("SELECT string_agg(id, ',') FROM session") == sound)
    }
}
