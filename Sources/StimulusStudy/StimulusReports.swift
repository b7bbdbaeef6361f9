import Foundation
import JSONStream
import SessionStore
import StimulusAnalysis

/// A recording left out of a result by a data-quality threshold.
public struct ExcludedRecording: Sendable, Equatable {
    public var session: String
    public var reason: String
}

/// A stimulus command's result: its table, the sessions left out with why, and what to read it with.
public struct StimulusReport: Sendable {
    public var table: StimulusTable
    public var skipped: [StimulusError]
    /// Recordings the data-quality thresholds left out.
    public var excluded: [ExcludedRecording] = []
    public var warnings: [StimulusWarning] = []
    /// Why the table has no rows (nil when it has).
    public var emptyReason: String?

    /// The JSON document: `rows` (the table's), `excluded` (session, reason) and `warnings` (sentences).
    public var json: JSONValue {
        .object([("rows", table.json),
                 ("excluded", .array(excluded.map { .object([("session", .string($0.session)), ("reason", .string($0.reason))]) })),
                 ("warnings", .array(warnings.map { .string($0.description) }))])
    }
}

/// The sessions a result is computed over, and those left out.
struct UsableViewings {
    var viewings: [StimulusViewing]
    var skipped: [StimulusError]
    var excluded: [ExcludedRecording]
    var warnings: [StimulusWarning]
    /// Each session's participant group.
    var groups: [String: String]

    func report(_ table: StimulusTable, extraWarnings: [StimulusWarning] = []) -> StimulusReport {
        StimulusReport(table: table, skipped: skipped, excluded: excluded, warnings: extraWarnings + warnings)
    }
}

/// Which table `stimulus aoi` gives.
public enum AOITableKind: String, Sendable, CaseIterable {
    /// One row per session and area.
    case participants
    /// One row per participant group and area: the means of its participants.
    case groups
    /// One row per session and ordered pair of areas: the transitions from one to the other.
    case transitions
}

extension StimulusStudy {
    /// Per-bin figures of each session (and, with `group`, over all of them).
    public func timeline(_ database: SessionDatabase, ids: [String], binSeconds: Double, group: Bool,
                         selection: RecordingSelection = RecordingSelection()) throws -> StimulusReport {
        let usable = try usable(database, ids: ids, selection: selection)
        let rows = try usable.viewings.map { try StimulusTimeline.rows($0, binSeconds: binSeconds) }
        let table = StimulusTable.timeline(rows.flatMap { $0 }, group: group ? StimulusTimeline.groupRows(rows) : [])
        return usable.report(table.withQuality(usable.viewings, groups: usable.groups))
    }

    /// AOI figures of each session with gaze (a session without gaze is left out, named): per
    /// session, per participant group, or the transitions between areas.
    public func areasOfInterest(_ database: SessionDatabase, ids: [String], areas: [AreaOfInterest],
                                kind: AOITableKind = .participants, selection: RecordingSelection = RecordingSelection(),
                                source: String = "the areas of interest") throws -> StimulusReport {
        let fit = try AOIFit.check(areas, widthPixels: stimulus.widthPixels, heightPixels: stimulus.heightPixels,
                                   durationSeconds: stimulus.durationSeconds, source: source)
        let usable = try usableWithGaze(database, ids: ids, selection: selection)
        let metrics = usable.viewings.flatMap { viewing in
            AOIAnalysis.metrics(viewing, areas: areas).map { var m = $0; m.group = usable.groups[viewing.sessionID]; return m }
        }
        let table: StimulusTable
        switch kind {
        case .participants: table = StimulusTable.aoi(metrics).withQuality(usable.viewings, groups: usable.groups)
        case .groups: table = .aoiGroups(AOIAnalysis.groups(metrics))
        case .transitions:
            table = .transitions(usable.viewings.flatMap { AOIAnalysis.transitions($0, areas: areas, group: usable.groups[$0.sessionID]) })
        }
        var report = usable.report(table, extraWarnings: fit)
        if table.rows.isEmpty { report.emptyReason = "there are fewer than two areas of interest, so no transitions between them" }
        return report
    }

    /// The aligned sessions with gaze while the stimulus was shown (one without is left out,
    /// named); throws when none has any.
    func usableWithGaze(_ database: SessionDatabase, ids: [String], selection: RecordingSelection = RecordingSelection()) throws
        -> UsableViewings {
        var usable = try usable(database, ids: ids, selection: selection)
        for viewing in usable.viewings where !viewing.hasGaze {
            usable.skipped.append(.sessionUnusable(sessionID: viewing.sessionID,
                                                   reason: "it has no gaze while the stimulus was shown (was it calibrated?)"))
        }
        usable.viewings = usable.viewings.filter(\.hasGaze)
        guard !usable.viewings.isEmpty else { throw Self.noneUsable(usable) }
        return usable
    }

    /// Ranked highlights over the sessions; the report says why when there is none.
    public func highlights(_ database: SessionDatabase, ids: [String], criteria: HighlightCriteria,
                           selection: RecordingSelection = RecordingSelection()) throws
        -> (report: StimulusReport, highlights: [Highlight]) {
        let usable = try usable(database, ids: ids, selection: selection)
        let found = try HighlightFinder.highlights(usable.viewings, placement: placement, criteria: criteria)
        var report = usable.report(.highlights(found))
        if found.isEmpty { report.emptyReason = HighlightFinder.whyNone(usable.viewings, placement: placement, criteria: criteria) }
        return (report, found)
    }

    /// The aligned sessions that pass `selection`'s thresholds; throws when none is, giving each one's reason.
    func usable(_ database: SessionDatabase, ids: [String], selection: RecordingSelection = RecordingSelection()) throws
        -> UsableViewings {
        let result = try viewings(database, ids: ids)
        var usable = UsableViewings(viewings: [], skipped: result.skipped, excluded: [], warnings: [], groups: [:])
        for viewing in result.viewings {
            if let reason = selection.criteria.exclusion(viewing.quality) {
                usable.excluded.append(ExcludedRecording(session: viewing.sessionID, reason: reason))
            } else {
                usable.viewings.append(viewing)
                usable.groups[viewing.sessionID] = selection.groups?.group(sessionID: viewing.sessionID, appID: viewing.appID)
                    ?? viewing.appID
            }
        }
        guard !usable.viewings.isEmpty else { throw Self.noneUsable(usable) }
        usable.warnings = Self.warnings(usable.viewings)
        return usable
    }

    /// The error naming each session's reason (the one session's own error when only one was given).
    static func noneUsable(_ usable: UsableViewings) -> any Error {
        if usable.skipped.count == 1 && usable.excluded.isEmpty { return usable.skipped[0] }
        return StimulusStudyError.noUsableSession(reasons: usable.skipped.map(\.description)
            + usable.excluded.map { "session \($0.session) left out: \($0.reason)" })
    }

    /// Reads an areas-of-interest file.
    public static func areas(path: String) throws -> [AreaOfInterest] {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw StimulusStudyError.cannotReadAOIs(path: path, reason: "it is a folder, not a file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StimulusStudyError.cannotReadAOIs(path: path, reason: "no such readable file")
        }
        return try AOIDocument.areas([UInt8](data), source: path)
    }
}
