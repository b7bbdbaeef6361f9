import Foundation
import Testing
import TestSupport

/// Refusals that say why: an empty password file, a zero screen size, an empty calibration or session import.
@Suite("refusals that say why")
struct PlainRefusalTests {
    @Test("--password-file /dev/null is refused as empty, not as unreadable, before any server is reached")
    func emptyPasswordFile() throws {
        let result = try Binary.run(["lab", "add-station", "room-9", "--server", "postgres://admin@127.0.0.1:1/gazerec",
                                     "--password-file", "/dev/null"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("the password file /dev/null is empty"), "\(result.stderr)")
    }

    @Test("--screen-size-mm 0x0 says why it is refused", arguments: [["validate"], ["fixations", "X"]])
    func zeroScreenSize(command: [String]) throws {
        let result = try Binary.run(command + ["--screen-size-mm", "0x0", "--distance-mm", "600"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("'0x0' is invalid for '--screen-size-mm <WxH>': a screen's width and height are more than 0 mm"),
                "\(result.stderr)")
        let garbled = try Binary.run(command + ["--screen-size-mm", "531-299", "--distance-mm", "600"])
        #expect(garbled.status == 64 && garbled.stderr.contains("write the width and height in millimetres as WxH"), "\(garbled.stderr)")
    }

    @Test("calibrations import of an empty array is an error that stores nothing")
    func emptyCalibrationImport() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.path("none.json")
        try "[]\n".write(toFile: file, atomically: true, encoding: .utf8)
        let environment = ["GAZEREC_DATABASE": folder.path("g.sqlite")]
        let result = try Binary.run(["calibrations", "import", file], environment: environment)
        #expect(result.status == 65 && result.stdout.isEmpty, "\(result.stderr)")
        #expect(result.stderr.contains("\(file): it is an empty array, with no calibration to import"), "\(result.stderr)")
    }

    @Test("import of an empty array is an error that stores nothing, as calibrations import says of one",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func emptySessionImport() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        #expect(try work.run(["import", Fixtures.iosSession]).status == 0)
        let before = try #require(FileManager.default.contents(atPath: work.database))
        let file = work.folder.path("none.json")
        try "[]\n".write(toFile: file, atomically: true, encoding: .utf8)
        // Alone, and after a file that holds a session (which is not imported either: all or nothing)
        let other = work.folder.path("other.json")
        try String(contentsOfFile: Fixtures.iosSession, encoding: .utf8)
            .replacingOccurrences(of: "3BE54760-F1E8-4799-A3CB-78806270E72A", with: "4BE54760-F1E8-4799-A3CB-78806270E72A")
            .write(toFile: other, atomically: true, encoding: .utf8)
        for arguments in [["import", file], ["import", other, file]] {
            let result = try work.run(arguments)
            #expect(result.status == 65 && result.stdout.isEmpty, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("\(file): it is an empty array, with no session to import"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
        #expect(FileManager.default.contents(atPath: work.database) == before)
    }
}
