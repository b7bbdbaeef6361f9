import ArgumentParser
import Foundation
import GazeModel
import JSONStream
import SessionExport
import SessionStore

/// Export formats.
enum ExportFormat: String, CaseIterable, ExpressibleByArgument {
    case json, csv, bids
}

extension Gazerec {
    /// `gazerec export`: sessions as EyeTracking JSON.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export sessions as EyeTracking JSON (stdout by default), CSV, or into an Eye-Tracking-BIDS dataset.",
            discussion: """
                One id gives one JSON object; several ids or --all give an array, or one file per \
                session (<id>.json) with --output-dir. The same stored session always exports to \
                the same bytes. gazerec's own data sits under the extra top-level key "gazerec" \
                (left out with --no-extensions), which the iOS package ignores.
                --format bids DIR ID... (or DIR --all) --subject LABEL --task LABEL adds each session as \
                the next run of the subject (and --session-label) and task to the BIDS dataset in the \
                folder DIR, created when missing; files already there stay as they were. \
                --subject-from app-id takes each session's subject from its app id instead. Gaze on \
                the screen needs the screen's size and distance: its calibration's, or \
                --screen-size-mm and --distance-mm (docs/ExportFormat.md).
                """)

        @OptionGroup var store: ReadableStoreOptions

        @Argument(help: "Session ids (case-insensitive); with --format bids, the dataset's folder first.")
        var ids: [String] = []

        @Flag(help: "Export every stored session.")
        var all = false

        @Option(help: ArgumentHelp("json (EyeTracking format), csv (one row per sample time, every series side by side), "
                                   + "or bids (Eye-Tracking-BIDS runs added to the dataset folder DIR)."))
        var format: ExportFormat = .json

        @Flag(help: "Write snake_case keys (Foundation's convertToSnakeCase); blend-shape names stay as they are.")
        var snakeCase = false

        @Option(name: .long, help: ArgumentHelp("Write to this file instead of stdout.", valueName: "file"))
        var output: String?

        @Option(name: .long, help: ArgumentHelp("Write one <id>.json file per session into this folder.", valueName: "dir"))
        var outputDir: String?

        @Flag(help: "Add fixations (I-DT defaults of 'gazerec fixations') and a movement label per scan-path sample under \"gazerec\".")
        var fixations = false

        @Flag(help: "Indent the JSON for reading.")
        var pretty = false

        @Flag(help: "Leave out the \"gazerec\" extension object.")
        var noExtensions = false

        @OptionGroup var bids: BIDSExportOptions

        func validate() throws {
            if format == .bids { return }  // checked by exportBIDS, one line each
            if bids.anyGiven { throw ValidationError("--subject, --subject-from, --session-label, --task, --screen-size-mm, "
                                                     + "--distance-mm and --again apply to --format bids only.") }
            if all && !ids.isEmpty { throw ValidationError("Give session ids or --all, not both.") }
            if !all && ids.isEmpty { throw ValidationError("Give one or more session ids, or --all.") }
            if output != nil && outputDir != nil { throw ValidationError("Use either --output or --output-dir, not both.") }
            if fixations && noExtensions { throw ValidationError("--fixations writes under \"gazerec\"; drop --no-extensions.") }
            if format == .csv && (pretty || noExtensions || fixations) {
                throw ValidationError("--pretty, --no-extensions and --fixations apply to JSON only (CSV has a movement column).")
            }
        }

        /// The export the options ask for, as the library's value.
        var exportFormat: SessionExport.Format {
            let keyStyle: KeyStyle = snakeCase ? .snakeCase : .camelCase
            if format == .csv { return .csv(keyStyle: keyStyle, movement: true) }
            return .json(ExportOptions(keyStyle: keyStyle, pretty: pretty, includeExtension: !noExtensions, fixations: fixations))
        }

        func run() throws {
            TemporaryFileCleanup.install()
            if format == .bids { return try exportBIDS() }
            // From a lab server, the plain JSON export is the stored documents themselves.
            if StoreOptions.isServer(store.resolvedPath), format == .json, !snakeCase, !pretty, !noExtensions, !fixations {
                return try ServerSnapshot.exportStored(address: store.resolvedPath, ids: all ? nil : ids,
                                                       outputDirectory: outputDir, deliver: deliver)
            }
            let database = try store.openForReading(sessions: all ? .all : .named(ids))
            let destination: SessionExport.Destination = outputDir.map { .folder($0) } ?? output.map { .file($0) }
                ?? .stream(FileByteSink.standardOutput())
            // Damaged sessions are never exported as data: named ids are refused, --all leaves them out.
            let report = try SessionExport(format: exportFormat).write(all ? .all : .named(ids), from: database, to: destination)
            ExportSelection.noteRepeated(report.repeated)
            if let outputDir {
                let count = report.files.count
                Console.note("exported \(count) session\(count == 1 ? "" : "s")\(format == .csv ? " as CSV" : "") to \(outputDir)")
            }
            guard report.leftOut.isEmpty else {
                report.leftOut.forEach { Console.error(ErrorHints.message(for: $0)) }
                let count = report.leftOut.count
                Console.error("\(count) damaged session\(count == 1 ? " was" : "s were") not exported.")
                throw ExitCode.failure
            }
        }

        /// The lab server's one output: `--output` (written atomically) or stdout.
        private func deliver(_ write: (FileByteSink) throws -> Void) throws {
            if let output {
                try OutputFile.writeAtomically(to: output) { try write($0) }
            } else {
                try write(FileByteSink.standardOutput())
            }
        }
    }
}
