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
}
