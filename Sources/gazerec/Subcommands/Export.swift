import ArgumentParser
import BIDSExport
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

extension Gazerec.Export {
    /// `export --format bids DIR [ID…|--all]`: the arguments' checks, before anything is read, each
    /// refusal one line (a `UsageError`, exit 64).
    func checkBIDSArguments() throws {
        guard let folder = ids.first else {
            throw UsageError(message: "no dataset folder given: name it, then the sessions "
                             + "(export --format bids DIR ID..., or DIR --all).")
        }
        if all && ids.count > 1 { throw UsageError(message: "session ids and --all given together: give one or the other.") }
        if !all && ids.count < 2 {
            throw UsageError(message: "no session named after the dataset folder \(folder): give one or more session ids, or --all.")
        }
        if output != nil || outputDir != nil || snakeCase || pretty || noExtensions || fixations {
            throw UsageError(message: "--output, --output-dir, --snake-case, --pretty, --no-extensions and --fixations apply to "
                             + "JSON and CSV; --format bids writes into the folder DIR.")
        }
        switch (bids.subject, bids.subjectFrom) {
        case (nil, nil): throw UsageError(message: "no BIDS subject given: give --subject LABEL, or --subject-from app-id.")
        case (_?, _?): throw UsageError(message: "--subject and --subject-from given together: give one of them.")
        default: break
        }
        guard let task = bids.task else {
            throw UsageError(message: "no BIDS task given: give it with --task LABEL (ASCII letters and digits).")
        }
        if (bids.screenSizeMm == nil) != (bids.distanceMm == nil) {
            throw UsageError(message: "--screen-size-mm and --distance-mm go together: give both or neither.")
        }
        if let distance = bids.distanceMm, !(distance > 0) { throw UsageError(message: "--distance-mm must be positive.") }
        do {
            _ = try BIDSRunLabels(subject: bids.subject ?? "0", session: bids.sessionLabel, task: task)
        } catch let error as BIDSExportError {
            let option = ["subject": "--subject", "session": "--session-label", "task": "--task"]
            if case .invalidLabel(let entity, _) = error { throw UsageError(message: "\(error) (\(option[entity] ?? entity)).") }
            throw error
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), !isFolder.boolValue {
            throw UsageError(message: "cannot write a BIDS dataset into \(folder): it is a file, not a folder. "
                             + "Give the dataset's folder (created when missing).")
        }
    }

    /// Adds each session to the dataset as the next run of its subject, session and task: the
    /// written files' paths (relative to the dataset) on stdout, one run a line on stderr.
    func exportBIDS() throws {
        try checkBIDSArguments()
        let folder = ids[0]
        let database = try store.openForReading(sessions: all ? .all : .named(Array(ids.dropFirst())))
        let runs = BIDSRunOptions(subject: bids.subject.map { .label($0) } ?? .appID, sessionLabel: bids.sessionLabel,
                                  task: bids.task!, viewing: bids.viewing, again: bids.again)
        let report: ExportReport
        var skipped = 0
        do {
            // Each run's files on stdout as soon as it is written, so a failure later leaves a true list.
            report = try SessionExport(format: .bids(runs)).write(all ? .all : .named(Array(ids.dropFirst())), from: database,
                                                                   to: .folder(folder)) { progress in
                switch progress {
                case let .runSkipped(id, run):
                    skipped += 1
                    Console.note("session \(id) is already in the dataset as \(run): skipped (give --again to add it as a new run)")
                case .runWritten(let exported):
                    Console.output(exported.run.files.map { $0 + "\n" }.joined())
                    let session = exported.labels.session.map { " ses-\($0)" } ?? ""
                    Console.note("session \(exported.sessionID) → sub-\(exported.labels.subject)\(session) "
                                 + "task-\(exported.labels.task) run-\(exported.run.runNumber) (\(exported.run.files.count) files)")
                }
            }
        } catch let error as BIDSExportError {
            let failure = BIDSExportFailure(error)
            if failure.isUsage { throw UsageError(message: failure.description) }
            throw failure
        }
        ExportSelection.noteRepeated(report.repeated)
        let skippedNote = skipped == 0 ? "" : "; skipped \(skipped) already there"
        Console.note("exported \(report.runs.count) session\(report.runs.count == 1 ? "" : "s") to the BIDS dataset \(folder)\(skippedNote)")
    }
}

/// A BIDS export refused or failed: the library's sentence with what to type; a usage error (exit
/// 64) when the command line must change (a subject or the screen's size missing), else exit 1.
struct BIDSExportFailure: RuntimeFailure {
    var error: BIDSExportError

    init(_ error: BIDSExportError) { self.error = error }

    var description: String {
        switch error {
        case .screenGeometryUnknown:
            return "\(error). Give the screen's size and the viewing distance with --screen-size-mm WxH and --distance-mm MM; "
                + "nothing was written."
        case .noSubjectLabel:
            return "\(error). Give the subject with --subject LABEL; nothing was written."
        case .nothingToExport:
            return "\(error). Leave it out of the export; nothing was written."
        default:
            return "\(error)."
        }
    }

    var isUsage: Bool {
        switch error {
        case .screenGeometryUnknown, .noSubjectLabel, .invalidLabel, .nothingToExport: return true
        default: return false
        }
    }
}
