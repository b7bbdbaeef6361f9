import Foundation
import JSONStream
import Testing
import TestSupport

/// Errors that used to mislead: each says what is wrong, where, and what to do, on one line.
@Suite("errors that name the real mistake")
struct ErrorMessageTests {
    static func run(_ arguments: [String], database: String = "/nonexistent/db.sqlite") throws -> CommandResult {
        try Binary.run(arguments, environment: ["GAZEREC_DATABASE": database])
    }

    @Test("a mistyped option or command is named, with the nearest right one, before any other complaint",
          arguments: [
              (["export", "--al"], "unknown option '--al' for 'gazerec export'. Did you mean '--all'?"),
              (["export", "--foo"], "unknown option '--foo' for 'gazerec export'. See 'gazerec export --help'."),
              (["plot", "X", "--outptu", "x.svg"], "unknown option '--outptu' for 'gazerec plot'. Did you mean '--output'?"),
              (["exprot", "--all"], "unknown command 'exprot' for 'gazerec'. Did you mean 'export'?"),
              (["calibrations", "lst"], "unknown command 'lst' for 'gazerec calibrations'. Did you mean 'list'?"),
              (["start", "--fsp=60"], "unknown option '--fsp' for 'gazerec start'. Did you mean '--fps'?"),
          ])
    func typos(arguments: [String], expected: String) throws {
        let result = try Self.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("gazerec: error: " + expected), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test("an unknown session or calibration: the store's sentence, then the command line's hint naming the commands",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func unknownSessionAndCalibration() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        #expect(try Self.run(["import", Fixtures.iosSession], database: database).status == 0)
        let session = try Self.run(["show", "FFFFFFFF-0000-0000-0000-000000000000"], database: database)
        #expect(session.status == 66)
        #expect(session.stderr == "gazerec: error: no session FFFFFFFF-0000-0000-0000-000000000000 in \(database). "
                + "List the stored sessions with 'gazerec list'.\n")
        let calibration = try Self.run(["calibrations", "export", "00000000-0000-0000-0000-000000000000"], database: database)
        #expect(calibration.status == 66)
        #expect(calibration.stderr == "gazerec: error: no calibration 00000000-0000-0000-0000-000000000000 in \(database). "
                + "List the stored calibrations with 'gazerec calibrations list', or make one with 'gazerec calibrate'.\n")
    }

    @Test("every usage error ends by naming its command's help, and a too short id prefix says how long one must be",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func usageErrorsNameTheHelp() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        #expect(try Self.run(["import", Fixtures.iosSession], database: database).status == 0)
        // A mistyped subcommand, a BIDS export without its subject or task (refused in the command's run).
        for (arguments, help) in [(["exprot", "--all"], "gazerec"), (["calibrations", "lst"], "gazerec calibrations"),
                                  (["export", "--all", "--format", "bids", "--output", folder.path("bids")], "gazerec export"),
                                  (["export", "--all", "--format", "bids", "--subject", "01", "--output", folder.path("bids")], "gazerec export")] {
            let result = try Self.run(arguments, database: database)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasSuffix(" See '\(help) --help'.\n") && result.stderr.split(separator: "\n").count == 1,
                    "\(arguments): \(result.stderr)")
        }
        let short = try Self.run(["delete", "9", "--yes"], database: database)
        #expect(short.status == 66)
        #expect(short.stderr.contains("no session 9 in") && short.stderr.contains("at least 4 characters"), "\(short.stderr)")
    }

    @Test("known options, option groups, hidden options and values after -- pass the check")
    func knownOptionsPass() throws {
        // These reach the command itself (and fail there for the missing database, exit 66).
        for arguments in [["export", "--all", "--snake-case", "--pretty"], ["list", "--json"],
                          ["--database", "/nonexistent/db.sqlite", "list"], ["show", "--", "--not-an-option"]] {
            let result = try Self.run(arguments)
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("no session database at /nonexistent/db.sqlite"), "\(arguments): \(result.stderr)")
        }
        #expect(try Self.run(["help", "export"]).status == 0)
        #expect(try Self.run(["start", "--help"]).status == 0)
    }

    @Test("export and plot name the file asked for, not its temporary sibling; a file in the way of a folder is named; a background that is not an image is refused",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func outputPaths() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        #expect(try Self.run(["import", Fixtures.iosSession], database: database).status == 0)
        let id = "3BE54760-F1E8-4799-A3CB-78806270E72A"
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder.path("afile")))
        let cases: [([String], Int32, String)] = [
            (["export", "--all", "--output", folder.path("nodir/x.json")], 1,
             "cannot write \(folder.path("nodir/x.json")): the folder \(folder.path("nodir")) does not exist."),
            (["export", "--all", "--output", folder.path("afile/x.json")], 1,
             "cannot write \(folder.path("afile/x.json")): \(folder.path("afile")) is a file, not a folder."),
            (["export", "--all", "--output-dir", folder.path("afile")], 1,
             "cannot create the output folder \(folder.path("afile")): \(folder.path("afile")) is a file, not a folder."),
            (["export", "--all", "--output-dir", folder.path("afile/sub")], 1,
             "cannot create the output folder \(folder.path("afile/sub")): \(folder.path("afile")) is a file, not a folder."),
            (["plot", id, "--output", folder.path("p.svg"), "--background", Fixtures.iosSession], 65,
             "--background \(Fixtures.iosSession) is not a PNG, JPEG, GIF or WebP image"),
        ]
        for (arguments, status, expected) in cases {
            let result = try Self.run(arguments, database: database)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("gazerec: error: " + expected), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains(".tmp-"), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("p.svg")))
        let image = try Self.run(["plot", id, "--output", folder.path("p.svg"), "--background", Fixtures.path("faces/sergey.png")],
                                 database: database)
        #expect(image.status == 0, "\(image.stderr)")
        let svg = try String(contentsOfFile: folder.path("p.svg"), encoding: .utf8)
        #expect(svg.contains("data:image/png;base64,"))
    }

}
