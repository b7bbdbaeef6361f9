import ContentDigest
import Foundation
import GazeModel

/// One item's presentation built from what the player reports, each report stamped on the session's
/// clock when it arrived: the onset at the first `playback-restart` after the file loaded (its first
/// frame is on the screen), the offset at `end-file`, pauses and resumes from `pause`, stalls from
/// `paused-for-cache`, seeks from the `seek` event to the `playback-restart` that ends it (landing at
/// the position mpv told for it, or, when that is its requested target beyond the stimulus, the first
/// `time-pos` after the restart; always within 0 … the duration), a playback sample per `time-pos` change, the rectangle from
/// `osd-dimensions` and the stimulus's own figures from `duration`, `container-fps` (else
/// `estimated-vf-fps`), `width` and `height`.
///
/// The rectangle: the window covers the screen from its origin (full screen), so the video's place
/// in window pixels is its place in display pixels; `pointsPerPixel` turns those into the
/// session's screen points (1 when the session's screen is the display's size in pixels).
/// Pure: no player, no clock (the tests feed it recorded message sequences).
struct PresentationTracker {
    private(set) var presentation: Presentation
    let pointsPerPixel: (x: Double, y: Double)
    /// Whether the player started this item's file: reports before it (the end of the screen it
    /// replaced) belong to what was shown before.
    private var started = false
    private var loaded = false
    private var paused = false
    private var stalled = false
    private var lastPosition: Double?
    /// A seek under way: where it jumped from, the position reported since (mpv may tell it before
    /// or just after the restart), and the restart that ended it.
    private var seek: (from: Double, landed: Double?, restartedAt: Double?)?
    private(set) var ended = false
    /// The player's latest `osd-dimensions`, whichever item it came with: mpv tells a property only
    /// when it changes, so an item placed as the one before it (or as the idle window) brings none.
    var latestDimensions: OSDDimensions?

    init(index: Int, item: PresentationItem, fileFacts: FileDigest?, pointsPerPixel: (x: Double, y: Double)) {
        presentation = Presentation(index: index, label: item.label, kind: item.kind,
                                    fileName: item.path.map { ($0 as NSString).lastPathComponent },
                                    byteSize: fileFacts?.byteSize, sha256: fileFacts?.sha256,
                                    durationSeconds: item.kind == .video ? nil : item.seconds, onsetSeconds: 0)
        self.pointsPerPixel = pointsPerPixel
    }

    /// Whether its first frame has been shown (its onset is known).
    private(set) var hasOnset = false

    mutating func observe(_ message: PlayerMessage, at time: Double) {
        guard !ended else { return }
        if case .event("start-file", _) = message { started = true }
        guard started else { return }
        switch message {
        case let .event(name, reason): observeEvent(name, reason: reason, at: time)
        case let .property(name, value): observeProperty(name, value, at: time)
        case .reply: break
        }
    }

    private mutating func observeEvent(_ name: String, reason: String?, at time: Double) {
        switch name {
        case "file-loaded": loaded = true
        case "playback-restart":
            guard loaded else { return }
            if !hasOnset {
                hasOnset = true
                presentation.onsetSeconds = time
                if presentation.rect == nil, let latestDimensions { place(latestDimensions) }
                if let lastPosition { presentation.playback.append(PlaybackSample(timestampSeconds: time, stimulusSeconds: lastPosition)) }
            } else if let seek {
                if let landed = seek.landed, isWithinStimulus(landed) {
                    recordSeek(at: time, landed: landed)
                } else {
                    // No position yet, or mpv's requested target beyond the stimulus (before its start,
                    // past its end): where it landed is the first position told after the restart.
                    self.seek?.restartedAt = time
                }
            }
        case "seek":
            guard hasOnset else { return }
            settleRestartedSeek()
            if seek == nil { seek = (from: lastPosition ?? 0, landed: nil, restartedAt: nil) }
        case "end-file":
            end(at: time, ending: Self.ending(reason: reason))
        default: break
        }
    }

    /// How mpv's `end-file` reason ends a presentation.
    static func ending(reason: String?) -> Presentation.Ending {
        switch reason {
        case "eof": .finished
        case "quit": .cutShort(reason: "the participant pressed Esc or q in the player")
        case "stop": .cutShort(reason: "the recording was stopped")
        case "error": .cutShort(reason: "the player could not play it")
        default: .cutShort(reason: "the player ended it (\(reason ?? "no reason given"))")
        }
    }

    private mutating func observeProperty(_ name: String, _ value: PlayerMessage.PropertyValue?, at time: Double) {
        switch (name, value) {
        case ("time-pos", .number(let position)?): observePosition(position, at: time)
        case ("pause", .flag(let flag)?):
            guard flag != paused else { return }
            paused = flag
            record(flag ? .pause : .resume, at: time)
        case ("paused-for-cache", .flag(let flag)?):
            guard flag != stalled else { return }
            stalled = flag
            record(flag ? .stall : .stallEnd, at: time)
        case ("osd-dimensions", .dimensions(let dimensions)?): place(dimensions)
        case ("duration", .number(let seconds)?):
            if presentation.kind == .video { presentation.durationSeconds = seconds }
        case ("container-fps", .number(let rate)?):
            if presentation.kind == .video, rate > 0 { presentation.frameRate = rate }
        case ("estimated-vf-fps", .number(let rate)?):
            if presentation.kind == .video, presentation.frameRate == nil, rate > 0 { presentation.frameRate = rate }
        case ("width", .number(let width)?): if presentation.kind != .blank { presentation.widthPixels = Int(width) }
        case ("height", .number(let height)?): if presentation.kind != .blank { presentation.heightPixels = Int(height) }
        default: break
        }
    }

    /// Whether a position lies within the stimulus: from 0 to its duration (when known).
    private func isWithinStimulus(_ position: Double) -> Bool {
        position >= 0 && position <= (presentation.durationSeconds ?? .infinity)
    }

    /// A position brought within the stimulus (0 … its duration): where a seek beyond it lands.
    private func clamped(_ position: Double) -> Double {
        max(0, min(position, presentation.durationSeconds ?? position))
    }

    /// A seek that ended (restarted) but whose landing was not told yet is recorded before anything
    /// else is, at its target brought within the stimulus.
    private mutating func settleRestartedSeek() {
        guard let seek, let restartedAt = seek.restartedAt else { return }
        recordSeek(at: restartedAt, landed: seek.landed ?? lastPosition ?? seek.from)
    }

    /// The seek under way ended at `time`, its picture at `landed` (brought within the stimulus).
    private mutating func recordSeek(at time: Double, landed requested: Double) {
        guard let seek else { return }
        let landed = clamped(requested)
        presentation.events.append(PresentationEvent(kind: .seek, timestampSeconds: time, stimulusSeconds: landed,
                                                     fromStimulusSeconds: seek.from))
        presentation.playback.append(PlaybackSample(timestampSeconds: time, stimulusSeconds: landed))
        self.seek = nil
    }

    /// The picture's rectangle in screen points from the window's size and margins.
    private mutating func place(_ dimensions: OSDDimensions) {
        guard presentation.kind != .blank, let rect = dimensions.videoRect else { return }
        presentation.rect = PresentationRect(x: rect.x * pointsPerPixel.x, y: rect.y * pointsPerPixel.y,
                                             width: rect.width * pointsPerPixel.x, height: rect.height * pointsPerPixel.y)
    }

    private mutating func observePosition(_ position: Double, at time: Double) {
        defer { lastPosition = position }
        guard hasOnset else { return }
        if let seek {
            if let restartedAt = seek.restartedAt {
                recordSeek(at: restartedAt, landed: position)
                return
            } else {
                // Still seeking: this is where it lands so far; the samples wait for the restart.
                self.seek?.landed = position
                return
            }
        }
        presentation.playback.append(PlaybackSample(timestampSeconds: time, stimulusSeconds: position))
    }

    /// A pause, resume, stall or stall's end at the last position, once shown.
    private mutating func record(_ kind: PresentationEvent.Kind, at time: Double) {
        guard hasOnset else { return }
        settleRestartedSeek()
        presentation.events.append(PresentationEvent(kind: kind, timestampSeconds: time, stimulusSeconds: lastPosition ?? 0))
    }

    /// Ends the presentation at `time` (the player's `end-file`, or the player's death or the
    /// recording's end when it sent none). Without an onset it was never on the screen: its onset is its offset.
    mutating func end(at time: Double, ending: Presentation.Ending) {
        guard !ended else { return }
        ended = true
        if let seek { recordSeek(at: seek.restartedAt ?? time, landed: seek.landed ?? lastPosition ?? seek.from) }
        if !hasOnset {
            hasOnset = true
            presentation.onsetSeconds = time
        }
        presentation.offsetSeconds = time
        presentation.ending = ending
    }
}
