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
    /// Each viewing's showing number (from 1) in its session, beside `viewings`: nil unless the
    /// sessions' presentations place the stimulus and every showing is its own viewing.
    var showings: [Int]?

    /// A table whose first rows are the viewings' own (`rowCounts` of each, in order): with `quality`,
    /// each one's data-quality columns; for presented showings, a `showing` column after `session`.
    func perViewing(_ table: StimulusTable, rowCounts: [Int], quality: Bool) -> StimulusTable {
        let table = quality ? table.withQuality(viewings, rowCounts: rowCounts, groups: groups) : table
        guard let showings else { return table }
        return table.namingShowings(zip(showings, rowCounts).flatMap { Array(repeating: $0, count: $1) })
    }

    /// Refuses several showings of one session where each viewing counts as a participant (a group's means).
    func requireOneViewingPerSession() throws {
        var seen: [String: Int] = [:]
        for viewing in viewings { seen[viewing.sessionID, default: 0] += 1 }
        if let id = viewings.map(\.sessionID).first(where: { seen[$0]! > 1 }) {
            throw StimulusStudyError.severalShowings(sessionID: id, count: seen[id]!)
        }
    }

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
        let usable = try usable(database, ids: ids, selection: selection, everyShowing: true)
        let rows = try usable.viewings.map { try StimulusTimeline.rows($0, binSeconds: binSeconds) }
        let table = StimulusTable.timeline(rows.flatMap { $0 }, group: group ? StimulusTimeline.groupRows(rows) : [])
        return usable.report(usable.perViewing(table, rowCounts: rows.map(\.count), quality: true))
    }

    /// AOI figures of each session with gaze (a session without gaze is left out, named): per
    /// session, per participant group, or the transitions between areas.
    public func areasOfInterest(_ database: SessionDatabase, ids: [String], areas: [AreaOfInterest],
                                kind: AOITableKind = .participants, selection: RecordingSelection = RecordingSelection(),
                                source: String = "the areas of interest") throws -> StimulusReport {
        let fit = try AOIFit.check(areas, widthPixels: stimulus.widthPixels, heightPixels: stimulus.heightPixels,
                                   durationSeconds: stimulus.durationSeconds, source: source)
        let usable = try usableWithGaze(database, ids: ids, selection: selection, everyShowing: true)
        let metrics = usable.viewings.map { viewing in
            AOIAnalysis.metrics(viewing, areas: areas).map { var m = $0; m.group = usable.groups[viewing.sessionID]; return m }
        }
        let table: StimulusTable
        switch kind {
        case .participants:
            table = usable.perViewing(.aoi(metrics.flatMap { $0 }), rowCounts: metrics.map(\.count), quality: true)
        case .groups:
            try usable.requireOneViewingPerSession()
            table = .aoiGroups(AOIAnalysis.groups(metrics.flatMap { $0 }))
        case .transitions:
            let transitions = usable.viewings.map { AOIAnalysis.transitions($0, areas: areas, group: usable.groups[$0.sessionID]) }
            table = usable.perViewing(.transitions(transitions.flatMap { $0 }), rowCounts: transitions.map(\.count), quality: false)
        }
        var report = usable.report(table, extraWarnings: fit)
        if table.rows.isEmpty { report.emptyReason = "there are fewer than two areas of interest, so no transitions between them" }
        return report
    }

    /// The aligned sessions with gaze while the stimulus was shown (one without is left out,
    /// named); throws when none has any.
    func usableWithGaze(_ database: SessionDatabase, ids: [String], selection: RecordingSelection = RecordingSelection(),
                        everyShowing: Bool = false) throws -> UsableViewings {
        var usable = try usable(database, ids: ids, selection: selection, everyShowing: everyShowing)
        let kept = usable.viewings.indices.filter { usable.viewings[$0].hasGaze }
        for index in usable.viewings.indices where !usable.viewings[index].hasGaze {
            let during = usable.showings.map { "during its showing \($0[index])" } ?? "while the stimulus was shown"
            usable.skipped.append(.sessionUnusable(sessionID: usable.viewings[index].sessionID,
                                                   reason: "it has no gaze \(during) (was it calibrated?)"))
        }
        usable.viewings = kept.map { usable.viewings[$0] }
        usable.showings = usable.showings.map { showings in kept.map { showings[$0] } }
        guard !usable.viewings.isEmpty else { throw Self.noneUsable(usable) }
        // The warnings of the sessions analysed only: one left out is told about once, as left out.
        usable.warnings = Self.warnings(usable.viewings)
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
    /// With `everyShowing` and a presented stimulus, each selected showing is its own viewing (its number
    /// in `showings`); else one viewing per session (`viewings(_:ids:)`).
    func usable(_ database: SessionDatabase, ids: [String], selection: RecordingSelection = RecordingSelection(),
                everyShowing: Bool = false) throws -> UsableViewings {
        var result: (viewings: [StimulusViewing], showings: [Int]?, skipped: [StimulusError])
        if everyShowing, let presented {
            let pairs = try presentedViewings(database, ids: ids, presented: presented)
            result = (pairs.viewings.map(\.viewing), pairs.viewings.map(\.showing.number), pairs.skipped)
        } else {
            let single = try viewings(database, ids: ids)
            result = (single.viewings, nil, single.skipped)
        }
        var usable = UsableViewings(viewings: [], skipped: result.skipped, excluded: [], warnings: [], groups: [:],
                                    showings: result.showings.map { _ in [] })
        for (index, viewing) in result.viewings.enumerated() {
            let showing = result.showings?[index]
            if let reason = selection.criteria.exclusion(viewing.quality) {
                usable.excluded.append(ExcludedRecording(session: viewing.sessionID,
                                                         reason: showing.map { "showing \($0): \(reason)" } ?? reason))
            } else {
                usable.viewings.append(viewing)
                if let showing { usable.showings?.append(showing) }
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
