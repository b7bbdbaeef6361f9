import Foundation
import GazeAnalysis
import GazeModel
import JSONStream
import SessionStore
import StimulusAnalysis

/// Which recordings a stimulus result takes and how it groups them: data-quality thresholds and the
/// participant group of each session.
public struct RecordingSelection: Sendable {
    public var criteria: QualityCriteria
    /// The participants file's groups (nil: each session's app id is its group).
    public var groups: ParticipantGroups?

    public init(criteria: QualityCriteria = QualityCriteria(), groups: ParticipantGroups? = nil) {
        self.criteria = criteria
        self.groups = groups
    }
}

/// Participant groups read from a CSV file with a header: a `group` column and a key column,
/// `session` (a session id) or `app_id` (the app id a recording was made with).
public struct ParticipantGroups: Sendable, Equatable {
    public var bySession: [String: String]
    public var byAppID: [String: String]

    public init(bySession: [String: String] = [:], byAppID: [String: String] = [:]) {
        self.bySession = bySession
        self.byAppID = byAppID
    }

    /// The group of a session (by its id, case-insensitive, then by its app id); nil: not listed.
    public func group(sessionID: String, appID: String) -> String? {
        bySession[sessionID.uppercased()] ?? byAppID[appID]
    }

    /// Reads the file (comma-separated, no quoted commas; blank lines skipped).
    public static func read(path: String) throws -> ParticipantGroups {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw StimulusStudyError.cannotReadParticipants(path: path, reason: "no such readable UTF-8 file")
        }
        return try parse(text, path: path)
    }

    static func parse(_ text: String, path: String) throws -> ParticipantGroups {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) } }
            .filter { !$0.allSatisfy(\.isEmpty) }
        guard let header = lines.first, let groupColumn = header.firstIndex(of: "group") else {
            throw StimulusStudyError.cannotReadParticipants(path: path, reason: "its header has no column \"group\"")
        }
        let sessionColumn = header.firstIndex(of: "session"), appColumn = header.firstIndex(of: "app_id")
        guard sessionColumn != nil || appColumn != nil else {
            throw StimulusStudyError.cannotReadParticipants(path: path, reason: "its header needs a column \"session\" or \"app_id\"")
        }
        var groups = ParticipantGroups()
        for (index, row) in lines.enumerated().dropFirst() {
            guard row.count == header.count, !row[groupColumn].isEmpty else {
                throw StimulusStudyError.cannotReadParticipants(
                    path: path, reason: "line \(index + 1) needs \(header.count) comma-separated values and a group")
            }
            if let column = sessionColumn, !row[column].isEmpty { groups.bySession[row[column].uppercased()] = row[groupColumn] }
            if let column = appColumn, !row[column].isEmpty { groups.byAppID[row[column]] = row[groupColumn] }
        }
        return groups
    }
}

extension StimulusStudy {
    /// Adds to `viewing` what its session's header says of its quality (the calibration's accuracy,
    /// whether the degree scale was assumed, the rectangle's fit to the recorded screen) and its app
    /// id; refuses a session whose screen the rectangle lies wholly off. `shownAt` is where this
    /// session showed the stimulus (nil: the study's placement, `--rect`).
    func assess(_ viewing: inout StimulusViewing, header: SessionHeader, shownAt: StimulusPlacement? = nil) throws {
        let calibration = header.gazerecExtension?.calibration
        viewing.quality.accuracyDegrees = calibration?.accuracyDegrees
        viewing.quality.accuracyPoints = calibration?.accuracyPoints
        viewing.quality.scaleAssumed = header.fixationScale().source == .assumed
        if viewing.quality.scaleAssumed { viewing.quality.precisionDegrees = nil }
        viewing.appID = header.appID
        let width = header.deviceInfo.screenWidth, height = header.deviceInfo.screenHeight
        guard width > 0, height > 0 else { return }
        (viewing.quality.screenWidthPoints, viewing.quality.screenHeightPoints) = (width, height)
        viewing.quality.rectangleOnScreenShare = try rectangleOnScreenShare(header: header, shownAt: shownAt)
    }

    /// The share of the stimulus's rectangle (`shownAt`, else the study's placement) on the
    /// session's recorded screen; nil without a screen size. Refuses a rectangle wholly off it.
    func rectangleOnScreenShare(header: SessionHeader, shownAt: StimulusPlacement? = nil) throws -> Double? {
        let width = header.deviceInfo.screenWidth, height = header.deviceInfo.screenHeight
        guard width > 0, height > 0 else { return nil }
        let p = shownAt ?? placement
        let overlap = Swift.max(0, Swift.min(p.screenX + p.screenWidth, width) - Swift.max(p.screenX, 0))
            * Swift.max(0, Swift.min(p.screenY + p.screenHeight, height) - Swift.max(p.screenY, 0))
        let share = overlap / (p.screenWidth * p.screenHeight)
        guard share > 0 else {
            throw StimulusError.sessionUnusable(
                sessionID: header.id,
                reason: "the stimulus's rectangle \(StimulusError.number(p.screenX)),\(StimulusError.number(p.screenY)),"
                    + "\(StimulusError.number(p.screenWidth)),\(StimulusError.number(p.screenHeight)) lies wholly off its recorded "
                    + "screen of \(StimulusError.number(width))×\(StimulusError.number(height)) points")
        }
        return share
    }

    /// The warnings the viewings' qualities call for (in the sessions' order); an assumed scale only
    /// for a viewing with gaze.
    static func warnings(_ viewings: [StimulusViewing]) -> [StimulusWarning] {
        var warnings: [StimulusWarning] = viewings.compactMap { viewing in
            guard let share = viewing.quality.rectangleOnScreenShare, share < 1 - 1e-9 else { return nil }
            return .rectanglePartlyOffScreen(sessionID: viewing.sessionID, onScreenShare: share,
                                             screenWidth: viewing.quality.screenWidthPoints ?? 0,
                                             screenHeight: viewing.quality.screenHeightPoints ?? 0)
        }
        // Only where there is gaze to measure in degrees: a session without (uncalibrated) is told about once, for that.
        for viewing in viewings where viewing.quality.scaleAssumed && viewing.hasGaze {
            warnings.append(.assumedScale(sessionID: viewing.sessionID, pointsPerDegree: ScreenGeometry.assumedPointsPerDegree))
        }
        return warnings
    }
}
