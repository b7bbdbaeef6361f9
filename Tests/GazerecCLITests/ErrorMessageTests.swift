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

    @Test("known options, option groups, hidden options and values after -- pass the check")
    func knownOptionsPass() throws {
        // These reach the command itself (and fail there for the missing database, exit 1).
        for arguments in [["export", "--all", "--snake-case", "--pretty"], ["list", "--json"],
                          ["--database", "/nonexistent/db.sqlite", "list"], ["show", "--", "--not-an-option"]] {
            let result = try Self.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("no session database at /nonexistent/db.sqlite"), "\(arguments): \(result.stderr)")
        }
        #expect(try Self.run(["help", "export"]).status == 0)
        #expect(try Self.run(["start", "--help"]).status == 0)
    }
}
