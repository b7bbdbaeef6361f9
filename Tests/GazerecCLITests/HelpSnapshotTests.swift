import Foundation
import Testing
import TestSupport

/// `--help` of every subcommand against a reviewed copy, as swift-argument-parser tests its own
/// help: a change to any option, default or wording shows up as a diff to review.
///
/// After an intended change, `GAZEREC_UPDATE_SNAPSHOTS=1 swift test --filter HelpSnapshotTests`
/// rewrites the copies in HelpSnapshots/, and the diff goes into the commit.
@Suite("Help snapshots")
struct HelpSnapshotTests {
    /// Every command path, nested ones included.
    static let commands: [[String]] = [
        [], ["position"], ["calibrate"], ["validate"], ["start"], ["stop"], ["status"], ["mark"], ["push"], ["lab"], ["lab", "init"],
        ["lab", "add-station"], ["lab", "add-analyst"], ["lab", "list-stations"], ["lab", "erase"], ["calibrations"],
        ["calibrations", "list"], ["calibrations", "show"], ["calibrations", "delete"], ["calibrations", "export"],
        ["calibrations", "import"], ["recalibrate"], ["reanalyze"], ["analyze"], ["devices"], ["fixations"], ["stimulus"],
        ["stimulus", "timeline"], ["stimulus", "aoi"], ["stimulus", "highlights"], ["stimulus", "overlay"], ["plot"], ["replay"], ["view"],
        ["list"], ["show"], ["export"], ["import"], ["delete"], ["repair"], ["check"], ["backup"],
    ]

    static let folder = Fixtures.repositoryRoot.appendingPathComponent("Tests/GazerecCLITests/HelpSnapshots")

    static func snapshotPath(_ command: [String]) -> String {
        folder.appendingPathComponent((["gazerec"] + command).joined(separator: "-") + ".txt").path
    }

    @Test("the help of each command is the reviewed text", arguments: commands)
    func help(_ command: [String]) throws {
        let result = try Binary.run(command + ["--help"], environment: ["COLUMNS": "80"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let path = Self.snapshotPath(command)
        if ProcessInfo.processInfo.environment["GAZEREC_UPDATE_SNAPSHOTS"] == "1" {
            try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        let expected = try #require(try? String(contentsOfFile: path, encoding: .utf8),
                                    "no snapshot \(path): record it with GAZEREC_UPDATE_SNAPSHOTS=1")
        #expect(result.stdout == expected)
    }

    @Test("the snapshot list names every subcommand the binary has")
    func everySubcommand() throws {
        func subcommands(_ path: [String]) throws -> [String] {
            let help = try Binary.run(path + ["--help"]).stdout
            guard let section = help.components(separatedBy: "SUBCOMMANDS:\n").dropFirst().first else { return [] }
            return section.split(separator: "\n").compactMap { line in
                // A subcommand line starts with two spaces and its name; continuation lines are indented further.
                guard line.hasPrefix("  "), !line.hasPrefix("   "), !line.contains("See 'gazerec help") else { return nil }
                return String(line.dropFirst(2).prefix { $0 != " " })
            }
        }
        var found: [[String]] = [[]]
        for name in try subcommands([]) {
            found.append([name])
            found += try subcommands([name]).map { [name, $0] }
        }
        #expect(Set(found) == Set(Self.commands))
    }
}
