import GazeModel

/// A hand-made presentation schedule like one `gazerec start --present` records, for tests: a
/// 6-second 640x360 video letterboxed on a 1280x800 screen shown twice around a blank, the second
/// showing paused, sought back, stalled and cut short.
///
/// Times are seconds after the session's begin (`relative`); the playback is written as segments
/// (from, to, stimulus position at `from`, playing or held), from which both the presentations'
/// playback samples and the expected positions are computed, so a test can check a reader against
/// the schedule without the code under test.
public enum StudyPresentations {
    /// One stretch of a presentation: from `from` to `to` (seconds after the session's begin) the
    /// stimulus advances from `stimulusFrom` at rate 1 (`playing`) or holds there.
    public struct Segment: Sendable {
        public var from: Double
        public var to: Double
        public var stimulusFrom: Double
        public var playing: Bool
    }

    /// The stimulus's rectangle on a 1280x800 screen: 640x360 scaled to 1280x720, 40 points of
    /// letterbox above and below.
    public static let rect = PresentationRect(x: 0, y: 40, width: 1280, height: 720)

    /// Segments per presentation index (the blank's is its one held stretch).
    public static let segments: [[Segment]] = [
        [Segment(from: 0.5, to: 6.5, stimulusFrom: 0, playing: true)],
        [Segment(from: 6.5, to: 7.5, stimulusFrom: 0, playing: true)],
        [Segment(from: 7.5, to: 9.5, stimulusFrom: 0, playing: true),      // plays 0 → 2
         Segment(from: 9.5, to: 11, stimulusFrom: 2, playing: false),      // paused at 2
         Segment(from: 11, to: 12, stimulusFrom: 2, playing: true),        // 2 → 3, then a seek back to 1
         Segment(from: 12, to: 14, stimulusFrom: 1, playing: true),        // 1 → 3
         Segment(from: 14, to: 14.5, stimulusFrom: 3, playing: false),     // stalled at 3
         Segment(from: 14.5, to: 16, stimulusFrom: 3, playing: true)],     // 3 → 4.5, then the player died
    ]

    /// The expected stimulus position of presentation `index` at `relative` seconds after the
    /// session's begin, from the segments alone (nil outside it).
    public static func position(_ index: Int, at relative: Double) -> Double? {
        guard let segment = segments[index].first(where: { $0.from <= relative && relative < $0.to }) else { return nil }
        return segment.stimulusFrom + (segment.playing ? relative - segment.from : 0)
    }

    /// The presentations of a session that began at `begin` (Unix seconds), the video's file facts
    /// given (its name, size and SHA-256). Playback samples every `step` seconds while shown.
    public static func presentations(begin: Double, fileName: String = "clip.mp4", byteSize: Int = 123_456,
                                     sha256: String = String(repeating: "ab", count: 32), step: Double = 0.25) -> [Presentation] {
        func samples(_ index: Int) -> [PlaybackSample] {
            let segments = segments[index]
            var out: [PlaybackSample] = []
            var t = segments[0].from
            while t < segments[segments.count - 1].to - 1e-9 {
                out.append(PlaybackSample(timestampSeconds: begin + t, stimulusSeconds: position(index, at: t)!))
                t += step
            }
            return out
        }
        let video = { (index: Int, label: String) in
            Presentation(index: index, label: label, kind: .video, fileName: fileName, byteSize: byteSize, sha256: sha256,
                         durationSeconds: 6, frameRate: 30, widthPixels: 640, heightPixels: 360, rect: rect,
                         onsetSeconds: begin + segments[index][0].from, offsetSeconds: begin + segments[index].last!.to,
                         playback: samples(index), ending: .finished)
        }
        var second = video(2, "clip")
        second.events = [
            PresentationEvent(kind: .pause, timestampSeconds: begin + 9.5, stimulusSeconds: 2),
            PresentationEvent(kind: .resume, timestampSeconds: begin + 11, stimulusSeconds: 2),
            PresentationEvent(kind: .seek, timestampSeconds: begin + 12, stimulusSeconds: 1, fromStimulusSeconds: 3),
            PresentationEvent(kind: .stall, timestampSeconds: begin + 14, stimulusSeconds: 3),
            PresentationEvent(kind: .stallEnd, timestampSeconds: begin + 14.5, stimulusSeconds: 3),
        ]
        second.ending = .cutShort(reason: "the player stopped unexpectedly (exit status 1)")
        let blank = Presentation(index: 1, label: "blank", kind: .blank, durationSeconds: 1, onsetSeconds: begin + 6.5,
                                 offsetSeconds: begin + 7.5, ending: .finished)
        return [video(0, "clip"), blank, second]
    }
}
