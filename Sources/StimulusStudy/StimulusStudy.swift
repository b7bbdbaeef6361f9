import Foundation
import GazeAnalysis
import GazeModel
import SessionStore
import StimulusAnalysis

/// Sessions that viewed one stimulus, read from the store and aligned to it: the use case behind
/// the stimulus timeline, areas of interest, highlights and overlay.
public struct StimulusStudy: Sendable {
    /// The stimulus file's measurements.
    public let stimulus: StimulusFile
    /// Where it was shown (screen points) and its pixel grid.
    public let placement: StimulusPlacement
    /// The marker at which it appeared (nil: the session's start) and the one that ended it (nil:
    /// its duration for a video, else the session's end).
    public let startLabel: String?
    public let endLabel: String?
    /// Set when the sessions' own presentations of the stimulus place it in time and on the screen
    /// (`init(stimulus:presented:database:ids:)`, PresentedStudy.swift); nil: the rectangle and markers do.
    public internal(set) var presented: PresentedStimulus?

    /// Refuses a rectangle of another aspect than the stimulus's, or without area.
    public init(stimulus: StimulusFile, screenX: Double, screenY: Double, screenWidth: Double, screenHeight: Double,
                startLabel: String? = nil, endLabel: String? = nil) throws {
        self.stimulus = stimulus
        placement = try StimulusPlacement(screenX: screenX, screenY: screenY, screenWidth: screenWidth, screenHeight: screenHeight,
                                          widthPixels: stimulus.widthPixels, heightPixels: stimulus.heightPixels)
        self.startLabel = startLabel
        self.endLabel = endLabel
    }

    /// The sessions aligned to the stimulus, and why each one that could not be is left out (in the
    /// order given). Throws only for the store itself (a missing session is the store's error).
    public func viewings(_ database: SessionDatabase, ids: [String]) throws
        -> (viewings: [StimulusViewing], skipped: [StimulusError]) {
        if let presented { return try presentedParticipantViewings(database, ids: ids, presented: presented) }
        var viewings: [StimulusViewing] = [], skipped: [StimulusError] = []
        for id in ids {
            do {
                viewings.append(try viewing(try database.recordedStreams(id: id)))
            } catch let error as StimulusError {
                skipped.append(error)
            }
        }
        return (viewings, skipped)
    }

    /// One session aligned to the stimulus.
    public func viewing(_ streams: RecordedStreams) throws -> StimulusViewing {
        let header = streams.header
        let (start, end) = try interval(header, markers: streams.markers,
                                        lastSampleSeconds: [streams.gaze.last?.timestampSeconds,
                                                            streams.expressions.last?.timestampSeconds].compactMap { $0 }.max())
        var viewing = StimulusViewing(sessionID: header.id, placement: placement, startSeconds: start, endSeconds: end,
                                      gaze: streams.gaze, detector: header.fixationScale().defaultDetector,
                                      blinks: streams.blinks, expressions: streams.expressions, smile: streams.smile)
        try assess(&viewing, header: header)
        return viewing
    }

    /// Why `viewings` would leave out a session of `ids` for where the stimulus was shown and the
    /// markers it starts and ends at (the first such session's refusal; nil: none), read from the
    /// sessions' headers and markers alone: no samples are read, so it is quick on long sessions. A
    /// session without an end time ends at its last gaze sample here (`viewings` also counts its
    /// expression samples, which a recording takes with the gaze).
    public func placementRefusal(_ database: SessionDatabase, ids: [String]) throws -> StimulusError? {
        for id in ids {
            let summary = try database.summary(id: id)
            do {
                _ = try interval(summary.header, markers: try database.markers(id: id), lastSampleSeconds: summary.lastGazeTimestampSeconds)
                _ = try rectangleOnScreenShare(header: summary.header)
            } catch let refusal as StimulusError {
                return refusal
            }
        }
        return nil
    }

    /// The stimulus's interval in a session, Unix seconds: from its start marker (else the
    /// session's begin) to its end marker, else the end of a video's duration or of the session
    /// (its end time, else its last sample). Refuses a missing marker and an empty interval.
    private func interval(_ header: SessionHeader, markers: [Marker], lastSampleSeconds: Double?) throws -> (start: Double, end: Double) {
        let sessionEnd = header.endTimeSeconds ?? Swift.max(lastSampleSeconds ?? header.beginTimeSeconds, header.beginTimeSeconds)
        let start = try markerTime(startLabel, in: markers, of: header.id, after: nil) ?? header.beginTimeSeconds
        var end = sessionEnd
        if let endLabel {
            end = try markerTime(endLabel, in: markers, of: header.id, after: start)!
        } else if let duration = stimulus.durationSeconds {
            end = Swift.min(sessionEnd, start + duration)
        }
        guard end > start else {
            throw StimulusError.sessionUnusable(sessionID: header.id, reason: "the stimulus's interval is empty (it ends at or before its start)")
        }
        return (start, end)
    }

    /// The time of the first marker labelled `label` (after `after`, when given); nil without a label.
    private func markerTime(_ label: String?, in markers: [Marker], of sessionID: String, after: Double?) throws -> Double? {
        guard let label else { return nil }
        let times = markers.filter { $0.label == label }.map(\.timestampSeconds).filter { after == nil || $0 > after! }.sorted()
        guard let time = times.first else {
            var known: [String] = []
            for marker in markers where !known.contains(marker.label) { known.append(marker.label) }
            let where_ = after == nil ? "" : " after the start marker"
            throw StimulusError.sessionUnusable(
                sessionID: sessionID,
                reason: "it has no marker \"\(label)\"\(where_) (its markers: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
        }
        return time
    }
}
