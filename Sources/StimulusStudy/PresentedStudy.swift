import ContentDigest
import Foundation
import GazeAnalysis
import GazeModel
import SessionStore
import StimulusAnalysis

/// Which showings of the stimulus a study reads in each session that presented it.
public enum ShowingSelection: Sendable, Equatable {
    /// Every showing, each its own viewing (Tobii Pro Lab's Times of Interest), reported separately.
    case all
    /// The n-th showing (from 1) of the stimulus in each session.
    case number(Int)
}

/// A study of the sessions' own presentations of the stimulus (`gazerec start --present`): the
/// file's content hash names it, so a renamed copy matches.
public struct PresentedStimulus: Sendable, Equatable {
    /// Lowercase hexadecimal SHA-256 of the stimulus file.
    public var sha256: String
    public var selection: ShowingSelection
}

/// One showing of the stimulus in one session and its place among that session's showings.
public struct Showing: Sendable {
    public var sessionID: String
    /// 1 for the session's first showing of the stimulus, 2 for its second, …
    public var number: Int
    public var presentation: Presentation
}

extension StimulusFile {
    /// Lowercase hexadecimal SHA-256 of the file's bytes (read in 1 MiB blocks).
    public static func sha256(path: String) throws -> String {
        do {
            return try FileDigest(path: path).sha256
        } catch .unreadable(_, let reason) {
            throw StimulusStudyError.cannotReadStimulus(path: path, reason: reason)
        }
    }
}

extension StimulusStudy {
    /// A study of the sessions' presentations of `stimulus`: those of a file with its SHA-256.
    /// The study's placement (the pixel grid a highlight's crop and the overlay use) is the
    /// rectangle most of the matching presentations had among those of the stimulus's aspect (a tie:
    /// the one nearest the screen's top-left), whatever the order of `ids`; each session is read at
    /// its own presentation's, and one whose rectangle is unusable is left out, named.
    /// Throws `notPresented` when no session presented it, `noUsableSession` when none placed it usably.
    public init(stimulus: StimulusFile, presented selection: ShowingSelection, database: SessionDatabase, ids: [String]) throws {
        let sha256 = try StimulusFile.sha256(path: stimulus.path)
        var placed: [(id: String, number: Int, rect: PresentationRect)] = []
        for id in ids {
            let showings = try database.presentations(id: id).filter { $0.sha256 == sha256 }
            placed += showings.enumerated().compactMap { item in item.element.rect.map { (id, item.offset + 1, $0) } }
        }
        guard !placed.isEmpty else { throw StimulusStudyError.notPresented(path: stimulus.path, sha256: sha256) }
        var reasons: [String] = [], counts: [PresentationRect: Int] = [:]
        for item in placed {
            do {
                _ = try Self.placement(item.rect, stimulus: stimulus, sessionID: item.id, showing: item.number)
                counts[item.rect, default: 0] += 1
            } catch {
                reasons.append("\(error)")
            }
        }
        let order = { (a: PresentationRect, b: PresentationRect) in (a.y, a.x, a.width, a.height) < (b.y, b.x, b.width, b.height) }
        guard let rect = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : order($1.key, $0.key) })?.key else {
            throw StimulusStudyError.noUsableSession(reasons: reasons)
        }
        try self.init(stimulus: stimulus, screenX: rect.x, screenY: rect.y, screenWidth: rect.width, screenHeight: rect.height)
        presented = PresentedStimulus(sha256: sha256, selection: selection)
    }

    /// The stimulus placed at a showing's recorded rectangle; a rectangle without area or of another
    /// aspect than the stimulus's leaves the session out (`sessionUnusable`, naming it and the showing).
    static func placement(_ rect: PresentationRect, stimulus: StimulusFile, sessionID: String, showing: Int) throws
        -> StimulusPlacement {
        let place = "\(StimulusError.number(rect.width))×\(StimulusError.number(rect.height)) points"
        do {
            return try StimulusPlacement(screenX: rect.x, screenY: rect.y, screenWidth: rect.width, screenHeight: rect.height,
                                         widthPixels: stimulus.widthPixels, heightPixels: stimulus.heightPixels)
        } catch StimulusError.aspectMismatch {
            throw StimulusError.sessionUnusable(sessionID: sessionID, reason: "its showing \(showing) was recorded at a \(place) "
                + "rectangle, not of the stimulus's aspect (\(stimulus.widthPixels)×\(stimulus.heightPixels) pixels): "
                + "the picture was not shown at its own shape there")
        } catch {
            throw StimulusError.sessionUnusable(sessionID: sessionID, reason: "its showing \(showing)'s recorded place on the "
                + "screen (\(place)) is unusable")
        }
    }

    /// The selected showings of the stimulus in each session, each aligned by its presentation,
    /// and why each session or showing that could not be is left out.
    func presentedViewings(_ database: SessionDatabase, ids: [String], presented: PresentedStimulus) throws
        -> (viewings: [(showing: Showing, viewing: StimulusViewing)], skipped: [StimulusError]) {
        var viewings: [(Showing, StimulusViewing)] = [], skipped: [StimulusError] = []
        for id in ids {
            let showings = try database.presentations(id: id).filter { $0.sha256 == presented.sha256 }.enumerated()
                .map { Showing(sessionID: id, number: $0.offset + 1, presentation: $0.element) }
            let selected = showings.filter { presented.selection == .all || presented.selection == .number($0.number) }
            guard !selected.isEmpty else {
                skipped.append(.sessionUnusable(sessionID: id, reason: showings.isEmpty
                    ? "it did not present this stimulus (no presentation of a file with its SHA-256)"
                    : "it showed the stimulus \(showings.count) time\(showings.count == 1 ? "" : "s"), so it has no showing \(Self.number(presented.selection))"))
                continue
            }
            let streams = try database.recordedStreams(id: id)
            for showing in selected {
                do {
                    viewings.append((showing, try viewing(streams, showing: showing)))
                } catch let error as StimulusError {
                    skipped.append(error)
                }
            }
        }
        return (viewings, skipped)
    }

    private static func number(_ selection: ShowingSelection) -> String {
        if case .number(let n) = selection { return String(n) }
        return "at all"
    }

    /// One showing aligned by its presentation, at its own rectangle.
    private func viewing(_ streams: RecordedStreams, showing: Showing) throws -> StimulusViewing {
        let id = streams.header.id, p = showing.presentation
        guard let rect = p.rect else {
            throw StimulusError.sessionUnusable(sessionID: id, reason: "its showing \(showing.number) has no recorded place on the screen")
        }
        let placement = try Self.placement(rect, stimulus: stimulus, sessionID: id, showing: showing.number)
        var viewing = StimulusViewing(sessionID: id, placement: placement, presentation: p, gaze: streams.gaze,
                                      detector: streams.header.fixationScale().defaultDetector, blinks: streams.blinks,
                                      expressions: streams.expressions, smile: streams.smile)
        guard viewing.durationSeconds > 0 else {
            throw StimulusError.sessionUnusable(sessionID: id, reason: "its showing \(showing.number) ended before the stimulus played")
        }
        try assess(&viewing, header: streams.header, shownAt: placement)
        return viewing
    }

    /// The presented showings as viewings for the analyses that take one viewing per participant
    /// (highlights, overlay): refused when a session has more than one selected showing.
    func presentedParticipantViewings(_ database: SessionDatabase, ids: [String], presented: PresentedStimulus) throws
        -> (viewings: [StimulusViewing], skipped: [StimulusError]) {
        let (pairs, skipped) = try presentedViewings(database, ids: ids, presented: presented)
        for id in ids {
            let count = pairs.filter { $0.showing.sessionID == id }.count
            if count > 1 { throw StimulusStudyError.severalShowings(sessionID: id, count: count) }
        }
        return (pairs.map(\.viewing), skipped)
    }
}

extension StimulusTable {
    /// The table with a `showing` column after `session`: `numbers` for its first rows (one per
    /// session row), empty for the group rows after them.
    func namingShowings(_ numbers: [Int]) -> StimulusTable {
        var table = self
        table.columns.insert("showing", at: 1)
        table.rows = rows.enumerated().map { index, row in
            var row = row
            row.insert(index < numbers.count ? .count(numbers[index]) : .empty, at: 1)
            return row
        }
        return table
    }
}
