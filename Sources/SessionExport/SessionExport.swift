import BIDSExport
import Foundation
import GazeModel
import JSONStream
import SessionStore

/// Stored sessions written out: the one export entry point, its format a value.
///
/// A `SessionExport` is a format — EyeTracking JSON in any of its styles, CSV, or Eye-Tracking-BIDS
/// runs — and `write(_:from:to:progress:)` writes the sessions chosen into a destination: a stream
/// such as standard output, one file written whole, or a folder. Every form keeps the same
/// promises: each session once; the same stored session always to the same bytes; a damaged
/// session never written as data (named sessions are refused whole, an export of every session
/// leaves the damaged ones out and reports them); and no byte of a damaged session reaches a
/// stream that cannot take bytes back (`SoundOutput`).
public struct SessionExport: Sendable {
    /// What the sessions are written as.
    public enum Format: Sendable {
        /// EyeTracking JSON (`SessionDatabase.export`): one object, or an array for several sessions
        /// or every session; camelCase or snake_case keys, compact or pretty, with or without the
        /// `"gazerec"` extension (and fixations in it).
        case json(ExportOptions)
        /// One long CSV table (`SessionDatabase.exportCSV`): one row per sample time, every series
        /// side by side; `movement` labels each scan-path sample by the session's default detector.
        case csv(keyStyle: KeyStyle, movement: Bool)
        /// Each session added as the next run of its subject to the Eye-Tracking-BIDS dataset in
        /// the destination folder (`BIDSSessionExporter`).
        case bids(BIDSRunOptions)

        /// The name ending of the files written one per session into a folder (JSON and CSV).
        public var fileExtension: String {
            switch self {
            case .json: "json"
            case .csv: "csv"
            case .bids: ""
            }
        }
    }

    /// Where the sessions go.
    public enum Destination {
        /// One output into a sink as it stands (standard output, or a file open at its end).
        case stream(FileByteSink)
        /// One output file, written whole or not at all (`OutputFile.writeAtomically`).
        case file(String)
        /// A folder, created when missing: one `<id>.<extension>` file per session (JSON, CSV),
        /// each written whole; for BIDS, the dataset's root.
        case folder(String)
    }

    /// The sessions asked for.
    public enum Selection: Sendable, Equatable {
        /// Every stored session, oldest first: JSON writes an array, damaged sessions are left out.
        case all
        /// These sessions (full ids or unambiguous prefixes, case-insensitive), each once in the
        /// order first named; a damaged one refuses the whole export.
        case named([String])
    }

    public var format: Format

    public init(format: Format) {
        self.format = format
    }

    /// Writes the `selection` of `database`'s sessions to `destination`; `progress` hears of each
    /// BIDS run as it is written or skipped. Throws for an unknown id, the first damaged session
    /// of a named selection (nothing written), a BIDS refusal, or a reading or writing failure.
    public func write(_ selection: Selection, from database: SessionDatabase, to destination: Destination,
                      progress: (ExportProgress) -> Void = { _ in }) throws -> ExportReport {
        var report = ExportReport()
        switch selection {
        case .all: report.sessionIDs = try database.sessionIDs()
        case .named(let named): (report.sessionIDs, report.repeated) = SessionSelection.once(try named.map { try database.canonicalID($0) })
        }
        let damaged: DamagedSessions = selection == .all ? .leaveOut : .refuse
        if case .bids(let options) = format {
            guard case .folder(let root) = destination else {
                throw BIDSExportError.io(action: "write a BIDS dataset into", path: "this output", reason: "a dataset is a folder")
            }
            report.runs = try options.exporter(root: root).export(ids: report.sessionIDs, from: database,
                                                                 skipped: { progress(.runSkipped(sessionID: $0, run: $1)) },
                                                                 written: { progress(.runWritten($0)) })
            report.sessionIDs = report.runs.map(\.sessionID)
            return report
        }
        let asArray = selection == .all || report.sessionIDs.count > 1
        switch destination {
        case .folder(let folder):
            (report.files, report.leftOut) = try SoundOutput.writeEach(
                report.sessionIDs, toFolder: folder, fileExtension: format.fileExtension, damaged: damaged
            ) { id, sink in try write(database, [id], sink, asArray: false) }
        case .file(let path):
            try OutputFile.writeAtomically(to: path) { file in
                report.leftOut = try SoundOutput.write(report.sessionIDs, to: file, damaged: damaged) { ids, sink in
                    try write(database, ids, sink, asArray: asArray)
                }
            }
            report.files = [path]
        case .stream(let stream):
            report.leftOut = try SoundOutput.write(report.sessionIDs, to: stream, damaged: damaged) { ids, sink in
                try write(database, ids, sink, asArray: asArray)
            }
        }
        let leftOut = Set(report.leftOut.compactMap(\.damagedSessionID))
        report.sessionIDs.removeAll { leftOut.contains($0) }
        return report
    }

    /// One output of `ids` as JSON or CSV.
    private func write(_ database: SessionDatabase, _ ids: [String], _ sink: ByteSink, asArray: Bool) throws {
        switch format {
        case .json(let options): try database.export(ids: ids, asArray: asArray, to: sink, options: options)
        case let .csv(keyStyle, movement): try database.exportCSV(ids: ids, to: sink, keyStyle: keyStyle, movement: movement)
        case .bids: preconditionFailure("BIDS runs are written by BIDSSessionExporter")
        }
    }
}

/// A BIDS run written or skipped, as it happens (so a failure later leaves a true account).
public enum ExportProgress: Sendable {
    /// The session is already in the dataset as `run` (`sub-01/beh/sub-01_task-reading_run-1`) and was not written again.
    case runSkipped(sessionID: String, run: String)
    /// The session was written as this run.
    case runWritten(BIDSExportedRun)
}

/// What an export wrote and left out.
public struct ExportReport: Sendable {
    /// The sessions written, in order (full ids).
    public var sessionIDs: [String] = []
    /// The files written (a file destination, or one per session in a folder); empty for a stream.
    public var files: [String] = []
    /// The damaged sessions left out of an export of every session, each as its error.
    public var leftOut: [StoreError] = []
    /// How many of the ids named a session already given (each session is written once).
    public var repeated = 0
    /// The BIDS runs written.
    public var runs: [BIDSExportedRun] = []

    public init() {}
}

extension StoreError {
    /// The session a `damagedSession` error names.
    var damagedSessionID: String? {
        if case .damagedSession(let id, _, _) = self { return id }
        return nil
    }
}
