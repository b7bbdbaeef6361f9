import ArgumentParser
import Foundation
import JSONStream
import SessionStore
import StimulusAnalysis
import StimulusStudy

/// Output formats of the stimulus tables.
enum StimulusFormat: String, CaseIterable, ExpressibleByArgument {
    case csv, json
}

/// `X,Y,W,H` in screen points (four finite numbers; `StimulusOptions.validate` refuses one without area, saying why).
struct ScreenRect: ExpressibleByArgument {
    var x: Double, y: Double, width: Double, height: Double

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let width = parts[2], let height = parts[3],
              [x, y, width, height].allSatisfy(\.isFinite) else { return nil }
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// What every stimulus subcommand takes: the sessions, the stimulus, where it was shown and when it appeared.
struct StimulusOptions: ParsableArguments {
    @OptionGroup var store: ReadableStoreOptions

    @Argument(help: "Session ids or id prefixes (case-insensitive).")
    var ids: [String] = []

    @Flag(help: "Every stored session.")
    var all = false

    @Option(help: ArgumentHelp("The stimulus: an image or a video (its size, rate and duration are read from it).", valueName: "file"))
    var stimulus: String

    @Option(help: ArgumentHelp("Where the stimulus was shown, in screen points: left, top, width, height (default: where "
                               + "and when the sessions presented it, 'gazerec start --present').", valueName: "X,Y,W,H"))
    var rect: ScreenRect?

    @Option(help: ArgumentHelp("With --rect: the marker at which the stimulus appeared (default: the session's start).", valueName: "label"))
    var start: String?

    @Option(help: ArgumentHelp("Without --rect: which showing of the stimulus in each session, from 1, or all (each its own rows).",
                               valueName: "n|all"))
    var showing: ShowingArgument?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Leave out recordings whose share of valid samples (a face found) is below this (0 to 1).",
                               valueName: "share"))
    var excludeValidBelow: Double?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Leave out recordings whose calibration accuracy is worse than this, or unknown in degrees.",
                               valueName: "degrees"))
    var excludeAccuracyAbove: Double?

    @Option(help: ArgumentHelp("Participant groups: a CSV with a header holding \"group\" and \"session\" or \"app_id\" "
                               + "(default: each recording's app id is its group).", valueName: "file"))
    var participants: String?

    func validate() throws {
        if let rect, rect.width <= 0 || rect.height <= 0 {
            throw ValidationError("--rect \(StimulusError.number(rect.x)),\(StimulusError.number(rect.y)),\(StimulusError.number(rect.width)),"
                                  + "\(StimulusError.number(rect.height)) has no area: its width and height (the third and fourth "
                                  + "numbers) must be positive screen points.")
        }
        if let share = excludeValidBelow, !(share >= 0 && share <= 1) {
            throw ValidationError("--exclude-valid-below must be a share from 0 to 1.")
        }
        if let degrees = excludeAccuracyAbove, !(degrees > 0) || !degrees.isFinite {
            throw ValidationError("--exclude-accuracy-above must be a positive number of degrees.")
        }
        if participants?.isEmpty == true { throw ValidationError("--participants is empty: give a CSV file.") }
        if all && !ids.isEmpty { throw ValidationError("Give session ids or --all, not both.") }
        if !all && ids.isEmpty { throw ValidationError("Give one or more session ids, or --all.") }
        if start?.isEmpty == true { throw ValidationError("--start is empty: give a marker label.") }
        if rect == nil && start != nil {
            throw ValidationError("--start goes with --rect: without --rect, the sessions' presentations of the stimulus give its time.")
        }
        if rect != nil && showing != nil {
            throw ValidationError("--showing goes without --rect: it chooses among the sessions' presentations of the stimulus.")
        }
    }

    /// The database, the sessions' canonical ids and the study (the stimulus measured).
    func open(end: String? = nil) throws -> (database: SessionDatabase, ids: [String], study: StimulusStudy) {
        let database = try store.openForReading(sessions: all ? .all : .named(ids))
        var selected: [String] = []
        for id in all ? try database.sessionIDs() : try ids.map({ try database.canonicalID($0) }) where !selected.contains(id) {
            selected.append(id)
        }
        let file = try StimulusFile.read(path: stimulus)
        guard let rect else {
            if end != nil {
                throw ValidationError("--end goes with --rect: without --rect, the sessions' presentations of the stimulus give its end.")
            }
            return (database, selected, try StimulusStudy(stimulus: file, presented: showing?.selection ?? .all, database: database, ids: selected))
        }
        let study = try StimulusStudy(stimulus: file, screenX: rect.x, screenY: rect.y, screenWidth: rect.width,
                                      screenHeight: rect.height, startLabel: start, endLabel: end)
        return (database, selected, study)
    }

    /// The data-quality thresholds and the participant groups given.
    func selection() throws -> RecordingSelection {
        RecordingSelection(criteria: QualityCriteria(minimumValidShare: excludeValidBelow, maximumAccuracyDegrees: excludeAccuracyAbove),
                           groups: try participants.map { try ParticipantGroups.read(path: $0) })
    }

    /// Names on stderr each session left out, each warning and, for an empty table, why; then prints
    /// the table (CSV), or the document with the table's rows, the recordings left out and the warnings (JSON).
    static func print(_ report: StimulusReport, format: StimulusFormat) throws {
        note(skipped: report.skipped, excluded: report.excluded, warnings: report.warnings)
        if let reason = report.emptyReason { Console.note(reason) }
        switch format {
        case .csv:
            Console.output(report.table.csv)
        case .json:
            Console.output(try JSONDocument.text(report.json))
        }
    }

    /// Each session left out and each warning, one line each on stderr.
    static func note(skipped: [StimulusError], excluded: [ExcludedRecording], warnings: [StimulusWarning]) {
        for skipped in skipped { Console.note("warning: " + ErrorHints.message(for: skipped)) }
        for recording in excluded { Console.note("warning: session \(recording.session) left out: \(recording.reason)") }
        for warning in warnings { Console.note("warning: \(warning)") }
    }
}

extension StimulusError: RuntimeFailure {}
extension StimulusStudyError: RuntimeFailure {}

/// `N` (from 1) or `all`: which showing of a presented stimulus.
struct ShowingArgument: ExpressibleByArgument {
    var selection: ShowingSelection

    init?(argument: String) {
        if argument == "all" {
            selection = .all
        } else if let number = Int(argument), number >= 1 {
            selection = .number(number)
        } else {
            return nil
        }
    }
}

/// `W:H`, a crop's aspect.
struct AspectRatio: ExpressibleByArgument {
    var value: Double

    init?(argument: String) {
        let parts = argument.split(separator: ":").map { Double($0) }
        guard parts.count == 2, let width = parts[0], let height = parts[1], width > 0, height > 0, width.isFinite, height.isFinite
        else { return nil }
        value = width / height
    }
}
