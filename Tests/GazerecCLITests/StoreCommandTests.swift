import Foundation
import GazeModel
import JSONStream
import SessionStore
import Testing
import TestSupport

/// End-to-end tests of the store subcommands: the real binary, its stdout, stderr and exit code.
@Suite("gazerec list/show/export/import/delete")
struct StoreCommandTests {
    static let fixtureID = "3BE54760-F1E8-4799-A3CB-78806270E72A"

    /// A temporary folder with a database path in it.
    struct Workspace {
        let folder: TemporaryFolder
        var database: String { folder.path("db.sqlite") }
        init() throws { folder = try TemporaryFolder() }
        func run(_ arguments: [String], stdin: Data? = nil) throws -> CommandResult {
            try Binary.run(arguments, environment: ["GAZEREC_DATABASE": database], stdin: stdin)
        }
        func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }
    }

    @Test("import, list, show and export the iOS fixture", .enabled(if: Fixtures.available, Fixtures.missingReason))
    func fixtureThroughTheCLI() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let imported = try work.run(["import", Fixtures.iosSession])
        #expect(imported.status == 0)
        #expect(imported.stdout == Self.fixtureID + "\n")
        #expect(imported.stderr.contains("imported 1 session (380 gaze, 1116 blend-shape samples)"))

        let ids = try work.run(["list", "--ids"])
        #expect(ids.stdout == Self.fixtureID + "\n")
        let table = try work.run(["list"])
        #expect(table.stdout.contains("ios-eye-tracking-example  2020-07-24T21:40:43.445Z  10.115"))
        let listJSON = try JSONValue.parse(Array(try work.run(["list", "--json"]).stdoutData))
        #expect(listJSON.arrayValue?.first?["gazeSamples"] == .number(380))

        let show = try work.run(["show", Self.fixtureID.lowercased()])
        #expect(show.status == 0)
        #expect(show.stdout.contains("Gaze samples   380"))
        #expect(show.stdout.contains("eyeBlink_R: 558 samples"))
        #expect(show.stdout.contains("iPad8,1, iOS 13.5.1"))

        let exported = try work.run(["export", Self.fixtureID])
        #expect(exported.status == 0)
        #expect(exported.stderr.isEmpty)
        let original = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.iosSession))))
        #expect(try JSONValue.parse(Array(exported.stdoutData)).isEquivalent(to: original))

        // --output writes the same bytes to a file; --all gives an array.
        let file = work.folder.path("one.json")
        #expect(try work.run(["export", Self.fixtureID, "--output", file]).stdout.isEmpty)
        #expect(work.fileBytes(file) == exported.stdoutData)
        let all = try JSONValue.parse(Array(try work.run(["export", "--all"]).stdoutData))
        #expect(all.arrayValue?.count == 1)
    }

    @Test("usage errors exit 64, an id or file that is not there 66, both on stderr only")
    func exitCodes() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        for arguments in [["export"], ["export", "--all", "X"], ["import"], ["delete"], ["delete", "--all", "X"],
                          ["list", "--json", "--ids"], ["export", "--nonsense"], ["frobnicate"]] {
            let result = try work.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(!result.stderr.isEmpty, "\(arguments)")
        }
        for arguments in [["export", "00000000-0000-0000-0000-000000000000"], ["show", "nope"],
                          ["delete", "00000000-0000-0000-0000-000000000000"], ["import", work.folder.path("none.json")]] {
            let result = try work.run(arguments)
            #expect(result.status == 66, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.hasPrefix("gazerec: error: "), "\(arguments)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }
    }

    @Test("a bad import leaves the database file byte for byte as it was",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func badImportChangesNothing() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        #expect(try work.run(["import", Fixtures.iosSession]).status == 0)
        let before = try #require(work.fileBytes(work.database))
        let bad = work.folder.path("bad.json")
        let text = try String(contentsOfFile: Fixtures.iosSession, encoding: .utf8)
            .replacingOccurrences(of: "3BE54760-F1E8-4799-A3CB-78806270E72A", with: "4BE54760-F1E8-4799-A3CB-78806270E72A")
        try Data(text.prefix(text.count / 2).utf8).write(to: URL(fileURLWithPath: bad))
        let good = work.folder.path("good.json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: good))
        let result = try work.run(["import", good, bad])
        #expect(result.status == 65)
        #expect(result.stderr.contains("cannot import \(bad): "))
        #expect(result.stderr.contains("truncated"))
        #expect(work.fileBytes(work.database) == before)
        #expect(try work.run(["list", "--ids"]).stdout == Self.fixtureID + "\n")
    }

    @Test("a file that is not a database: one line naming it, and the options that name the file")
    func notADatabase() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: work.database))
        let result = try work.run(["list"])
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "gazerec: error: cannot open the session database in \(work.database): file is not a "
                + "database. Check the path given by --database or GAZEREC_DATABASE.\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: work.database)) == Data("not a database".utf8))
    }

    @Test("import reads stdin and refuses a stored id unless told what to do",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func stdinAndExisting() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.iosSession))
        #expect(try work.run(["import", "-"], stdin: data).stdout == Self.fixtureID + "\n")
        let again = try work.run(["import", "-"], stdin: data)
        #expect(again.status == 1)
        #expect(again.stderr.contains("--replace"))
        let skipped = try work.run(["import", "--skip-existing", "-"], stdin: data)
        #expect(skipped.status == 0)
        #expect(skipped.stdout.isEmpty)
        #expect(skipped.stderr.contains("skipped 1 already stored"))
        #expect(try work.run(["import", "--replace", "-"], stdin: data).stdout == Self.fixtureID + "\n")
    }

    @Test("delete: ids all-or-nothing, --all and --database need --yes without a terminal",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func deleteCommands() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        #expect(try work.run(["import", Fixtures.iosSession]).status == 0)
        let partly = try work.run(["delete", Self.fixtureID, "00000000-0000-0000-0000-000000000000"])
        #expect(partly.status == 66)
        #expect(try work.run(["list", "--ids"]).stdout == Self.fixtureID + "\n")

        let unconfirmed = try work.run(["delete", "--all"])
        #expect(unconfirmed.status == 64)
        #expect(unconfirmed.stderr.contains("--yes"))
        #expect(try work.run(["list", "--ids"]).stdout == Self.fixtureID + "\n")
        #expect(try work.run(["delete", "--all", "--yes"]).status == 0)
        #expect(try work.run(["list", "--ids"]).stdout.isEmpty)

        #expect(try work.run(["delete", "--database"]).status == 64)
        #expect(FileManager.default.fileExists(atPath: work.database))
        #expect(try work.run(["delete", "--database", "--yes"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: work.database))
    }

    @Test("--database before the subcommand and XDG_DATA_HOME choose the file",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func databaseLocation() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let explicit = work.folder.path("explicit.sqlite")
        #expect(try Binary.run(["--database", explicit, "import", Fixtures.iosSession]).status == 0)
        #expect(FileManager.default.fileExists(atPath: explicit))
        #expect(try Binary.run(["list", "--ids", "--database", explicit]).stdout == Self.fixtureID + "\n")
        let xdg = work.folder.path("xdg")
        #expect(try Binary.run(["import", Fixtures.iosSession], environment: ["XDG_DATA_HOME": xdg]).status == 0)
        #expect(FileManager.default.fileExists(atPath: xdg + "/gazerec/gazerec.sqlite"))
    }

    @Test("batch script: export every id to a folder and re-import into a fresh database",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func batchScript() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        // Three sessions: the fixture and two renamed copies in snake_case.
        let text = try String(contentsOfFile: Fixtures.iosSession, encoding: .utf8)
        for (index, id) in ["00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002"].enumerated() {
            let path = work.folder.path("copy\(index).json")
            try Data(text.replacingOccurrences(of: Self.fixtureID, with: id).utf8).write(to: URL(fileURLWithPath: path))
            #expect(try work.run(["import", path]).status == 0)
        }
        #expect(try work.run(["import", Fixtures.iosSession]).status == 0)
        let script = """
            set -euo pipefail
            mkdir -p "$OUT"
            for id in $("$GAZEREC" list --ids); do "$GAZEREC" export --snake-case "$id" --output "$OUT/$id.json"; done
            GAZEREC_DATABASE="$FRESH" "$GAZEREC" import "$OUT"/*.json
            GAZEREC_DATABASE="$FRESH" "$GAZEREC" export --all
            """
        let out = work.folder.path("out"), fresh = work.folder.path("fresh.sqlite")
        let result = try Binary.runProcess("/bin/bash", ["-c", script], environment: [
            "GAZEREC": Binary.gazerec, "GAZEREC_DATABASE": work.database, "OUT": out, "FRESH": fresh])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).count == 3)
        let original = try work.run(["export", "--all"])
        #expect(result.stdout.hasSuffix(original.stdout))
        #expect(try JSONValue.parse(Array(original.stdoutData)).arrayValue?.count == 3)

        // --output-dir does the same in one call.
        let dir = work.folder.path("dir")
        let many = try work.run(["export", "--all", "--output-dir", dir])
        #expect(many.status == 0)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir)) == [
            "00000000-0000-0000-0000-000000000001.json", "00000000-0000-0000-0000-000000000002.json",
            Self.fixtureID + ".json"])
    }

    @Test("--help describes every subcommand")
    func help() throws {
        let result = try Binary.run(["--help"])
        #expect(result.status == 0)
        for name in ["list", "show", "export", "import", "delete"] {
            #expect(result.stdout.contains("  \(name) "), "\(name)")
        }
        let export = try Binary.run(["export", "--help"])
        #expect(export.stdout.contains("--snake-case"))
        #expect(export.stdout.contains("--output-dir"))
    }
}
