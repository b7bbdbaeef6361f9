import ArgumentParser
import Foundation
import GazeModel
import JSONStream
import SessionStore

extension Gazerec {
    /// `gazerec import`: EyeTracking JSON into the database.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import sessions from EyeTracking JSON files (or - for stdin), all in one transaction.",
            discussion: """
                Each file holds one session object or an array of them, with camelCase or snake_case \
                keys (detected). If any file is invalid, nothing is imported and the error names the \
                file and the JSON path. Prints the ids of the imported sessions on stdout.
                """)

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("JSON files; - reads stdin.", valueName: "file"))
        var files: [String] = []

        @Flag(help: "Read snake_case keys only (default: detect camelCase or snake_case).")
        var snakeCase = false

        @Flag(help: "Overwrite stored sessions that have the same id.")
        var replace = false

        @Flag(help: "Keep stored sessions that have the same id and ignore the imported copy.")
        var skipExisting = false

        func validate() throws {
            if files.isEmpty { throw ValidationError("Give one or more JSON files to import, or - for stdin.") }
            if replace && skipExisting { throw ValidationError("Use either --replace or --skip-existing, not both.") }
            if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be read only once.") }
        }

        func run() throws {
            // A failed import into a database it had to create leaves no file behind.
            let path = store.resolvedPath
            let created = !FileManager.default.fileExists(atPath: path)
            let report: ImportReport
            do {
                report = try importFiles()
            } catch {
                if created { SessionDatabase.removeCreatedFile(at: path) }
                throw error
            }
            let stored = report.imported + report.replaced
            Console.output(stored.map { $0 + "\n" }.joined())
            var summary = "imported \(report.imported.count) session\(report.imported.count == 1 ? "" : "s")"
            if !report.replaced.isEmpty { summary += ", replaced \(report.replaced.count)" }
            if !report.skipped.isEmpty { summary += ", skipped \(report.skipped.count) already stored" }
            summary += " (\(report.gazeSamples) gaze, \(report.blendShapeSamples) blend-shape samples)"
            Console.note(summary)
            for video in report.keptVideos { Console.note("kept \(video): the replaced session's saved video, now named by the imported one") }
            for file in report.removedFiles {
                Console.note("removed \(file): the replaced session's saved video (the imported session names no recorder to keep it by)")
            }
        }

        /// Imports the files, the database closed on return.
        private func importFiles() throws -> ImportReport {
            try store.open().importSessions(
                from: files.map { JSONSource.file($0) },
                keyStyle: snakeCase ? .snakeCase : .detect,
                existing: replace ? .replace : (skipExisting ? .skip : .fail))
        }
    }
}
