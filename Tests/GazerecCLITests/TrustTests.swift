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
}
