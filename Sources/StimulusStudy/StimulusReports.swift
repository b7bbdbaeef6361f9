import Foundation
import SessionStore
import StimulusAnalysis

/// A stimulus command's result: its table, and the sessions left out with why.
public struct StimulusReport: Sendable {
    public var table: StimulusTable
    public var skipped: [StimulusError]
}

extension StimulusStudy {
    /// Per-bin figures of each session (and, with `group`, over all of them).
    public func timeline(_ database: SessionDatabase, ids: [String], binSeconds: Double, group: Bool) throws -> StimulusReport {
        if let presented { return try presentedTimeline(database, ids: ids, binSeconds: binSeconds, group: group, presented: presented) }
        let (viewings, skipped) = try usable(database, ids: ids)
        let rows = try viewings.map { try StimulusTimeline.rows($0, binSeconds: binSeconds) }
        return StimulusReport(table: .timeline(rows.flatMap { $0 }, group: group ? StimulusTimeline.groupRows(rows) : []),
                              skipped: skipped)
    }

    /// AOI metrics of each session with gaze (a session without gaze is left out, named).
    public func areasOfInterest(_ database: SessionDatabase, ids: [String], areas: [AreaOfInterest]) throws -> StimulusReport {
        if let presented { return try presentedAreasOfInterest(database, ids: ids, areas: areas, presented: presented) }
        let (viewings, skipped) = try usableWithGaze(database, ids: ids)
        return StimulusReport(table: .aoi(viewings.flatMap { AOIAnalysis.metrics($0, areas: areas) }), skipped: skipped)
    }

    /// The aligned sessions with gaze while the stimulus was shown (one without is left out,
    /// named); throws when none has any.
    func usableWithGaze(_ database: SessionDatabase, ids: [String]) throws
        -> (viewings: [StimulusViewing], skipped: [StimulusError]) {
        var (viewings, skipped) = try usable(database, ids: ids)
        for viewing in viewings where !viewing.hasGaze {
            skipped.append(.sessionUnusable(sessionID: viewing.sessionID,
                                            reason: "it has no gaze while the stimulus was shown (was it calibrated?)"))
        }
        viewings = viewings.filter(\.hasGaze)
        guard !viewings.isEmpty else { throw StimulusStudyError.noUsableSession }
        return (viewings, skipped)
    }

    /// Ranked highlights over the sessions.
    public func highlights(_ database: SessionDatabase, ids: [String], criteria: HighlightCriteria) throws
        -> (report: StimulusReport, highlights: [Highlight]) {
        let (viewings, skipped) = try usable(database, ids: ids)
        let found = try HighlightFinder.highlights(viewings, placement: placement, criteria: criteria)
        return (StimulusReport(table: .highlights(found), skipped: skipped), found)
    }

    /// The aligned sessions; throws when none is.
    func usable(_ database: SessionDatabase, ids: [String]) throws -> (viewings: [StimulusViewing], skipped: [StimulusError]) {
        let result = try viewings(database, ids: ids)
        guard !result.viewings.isEmpty else {
            if result.skipped.count == 1 { throw result.skipped[0] }
            throw StimulusStudyError.noUsableSession
        }
        return result
    }

    /// Reads an areas-of-interest file.
    public static func areas(path: String) throws -> [AreaOfInterest] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StimulusStudyError.cannotReadAOIs(path: path, reason: "no such readable file")
        }
        return try AOIDocument.areas([UInt8](data), source: path)
    }
}
