import Foundation
import Testing
import TestSupport

/// The command line as ArgumentParser reads it: the global `--database` before the subcommand,
/// `--save-video` with or without a path, negative numbers reaching each option's own check, and
/// the two kinds of `--database` (a station's file, or one a lab server may stand for).
@Suite("argument parsing")
struct ArgumentParsingTests {
    @Test("--database before the subcommand names the database, beside a subcommand's own --database flag or option",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func leadingDatabase() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite"), other = folder.path("other.sqlite")
        let unset = ["GAZEREC_DATABASE": folder.path("unset.sqlite")]
        #expect(try Binary.run(["--database", database, "import", Fixtures.iosSession], environment: unset).status == 0)
        let list = try Binary.run(["--database=\(database)", "list"], environment: unset)
        #expect(list.status == 0 && list.stdout.contains("3BE54760"), "\(list.stderr)")
        // The option after the subcommand wins over the one before it.
        let after = try Binary.run(["--database", other, "list", "--database", database], environment: unset)
        #expect(after.status == 0 && after.stdout.contains("3BE54760"), "\(after.stderr)")
        // `delete --database` is a flag there: the file named before the subcommand goes.
        let delete = try Binary.run(["--database", database, "delete", "--database", "--yes"], environment: unset)
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database))
        #expect(!FileManager.default.fileExists(atPath: folder.path("unset.sqlite")))
    }

    @Test("--save-video without a path, before another option or last, reaches the command's checks; with one, the path is checked")
    func saveVideoOptionalValue() throws {
        let environment = ["GAZEREC_DATABASE": "/nonexistent/db.sqlite"]
        for arguments in [["start", "--input", "x.mp4", "--save-video", "--duration", "-1"],
                          ["start", "--input", "x.mp4", "--duration", "-1", "--save-video"]] {
            let result = try Binary.run(arguments, environment: environment)
            #expect(result.status == 64)
            #expect(result.stderr == "gazerec: error: --duration must be a positive number of seconds. See 'gazerec start --help'.\n",
                    "\(arguments): \(result.stderr)")
        }
        let named = try Binary.run(["start", "--save-video", "v.txt", "--input", "x.mp4"], environment: environment)
        #expect(named.status == 64 && named.stderr.contains("--save-video v.txt: the video is Matroska"), "\(named.stderr)")
    }

    @Test("a negative number after an option is that option's value, refused by the option's own check",
          arguments: [(["stop", "--timeout", "-1"], "--timeout must be a positive number of seconds"),
                      (["replay", "X", "--speed", "-2"], "--speed must be a positive number"),
                      (["mark", "--at", "-5", "x"], "--at takes Unix seconds, a positive number"),
                      (["analyze", "--input", "x", "--focal-length", "-3"], "--focal-length must be a positive number of pixels")])
    func negativeValues(arguments: [String], expected: String) throws {
        let result = try Binary.run(arguments, environment: ["GAZEREC_DATABASE": "/nonexistent/db.sqlite"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("gazerec: error: " + expected), "\(result.stderr)")
    }

    @Test("a lab server is refused by the commands that work on a station's file, before the command runs; the reading commands try to read it",
          arguments: [["start", "--input", "x.mp4"], ["import", "x.json"], ["status"], ["mark", "x"], ["delete", "X", "--yes"],
                      ["calibrations", "delete", "X"], ["repair"]])
    func serverRefused(arguments: [String]) throws {
        for environment in [["GAZEREC_DATABASE": "postgres://127.0.0.1:1/lab"], ["GAZEREC_DATABASE": "/nonexistent/db.sqlite"]] {
            let leading = environment["GAZEREC_DATABASE"]!.hasPrefix("postgres") ? [] : ["--database", "postgresql://127.0.0.1:1/lab"]
            let result = try Binary.run(leading + arguments, environment: environment)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("gazerec: error: postgres"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("is a lab server: ") && result.stderr.contains("works on a station's database file"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        let list = try Binary.run(["list"], environment: ["GAZEREC_DATABASE": "postgres://127.0.0.1:1/lab"])
        #expect(list.status == 1 && list.stderr.hasPrefix("gazerec: error: cannot reach the lab server at 127.0.0.1:1"), "\(list.stderr)")
    }
}
