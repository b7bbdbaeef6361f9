import ArgumentParser
import BIDSExport
import Foundation
import GazeModel
import SessionExport
import SessionStore

/// Rules that derive a session's BIDS subject label from the session (`export --format bids --subject-from`).
enum BIDSSubjectRule: String, CaseIterable, ExpressibleByArgument {
    /// The session's app id with everything but ASCII letters and digits left out.
    case appID = "app-id"
}

/// The options of `export --format bids`: the run's labels and the screen's size and distance.
struct BIDSExportOptions: ParsableArguments {
    @Option(help: ArgumentHelp("With --format bids: the BIDS subject label (ASCII letters and digits) of every session.",
                               valueName: "label"))
    var subject: String?

    @Option(help: ArgumentHelp("With --format bids: derive each session's subject label instead: 'app-id' (its app id "
                               + "with everything but ASCII letters and digits left out).", valueName: "rule"))
    var subjectFrom: BIDSSubjectRule?

    @Option(help: ArgumentHelp("With --format bids: the BIDS session label (ses-<label>), if any.", valueName: "label"))
    var sessionLabel: String?

    @Option(help: ArgumentHelp("With --format bids: the BIDS task label (required).", valueName: "label"))
    var task: String?

    @Option(help: ArgumentHelp("With --format bids: the physical screen size in millimetres (WxH), for every session "
                               + "(else its calibration's).", valueName: "WxH"), transform: MillimetreSize.parse)
    var screenSizeMm: MillimetreSize?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --format bids: the eye-to-screen distance in millimetres.", valueName: "mm"))
    var distanceMm: Double?

    @Flag(help: ArgumentHelp("With --format bids: export a session already in the dataset again, as a new run (else "
                             + "it is skipped and its run named)."))
    var again = false

    /// Whether any of these options was given (they apply to BIDS only).
    var anyGiven: Bool {
        subject != nil || subjectFrom != nil || sessionLabel != nil || task != nil || screenSizeMm != nil || distanceMm != nil
            || again
    }

    /// The screen's size and distance given, if any.
    var viewing: ViewingDistances? {
        guard let screenSizeMm, let distanceMm else { return nil }
        return ViewingDistances(screenWidthMillimetres: screenSizeMm.width, screenHeightMillimetres: screenSizeMm.height,
                                distanceMillimetres: distanceMm)
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
