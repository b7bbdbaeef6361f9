import GazeAnalysis
import GazeModel

extension StimulusViewing {
    /// Aligns a session's recordings to one presentation of the stimulus (`gazerec start
    /// --present` recorded it): a moment's stimulus time is the playback position on the screen
    /// then, by `PresentationClock` (the rule the CSV's `stimulusSeconds` follows too), not the
    /// time since a start.
    ///
    /// So a pause piles its samples on the paused second, a seek back visits seconds again, and
    /// what happened between onset and offset counts only while the stimulus was on the screen.
    /// Each sample keeps the session time it stands for (a dwell is real viewing time); a
    /// fixation is placed at its start's position and keeps its real length, one under way at onset or
    /// offset trimmed to the presentation (as Tobii Pro Lab trims them). `durationSeconds` is
    /// the furthest position the playback reached (at most the stimulus's duration).
    public init(sessionID: String, placement: StimulusPlacement, presentation: Presentation, gaze: [GazeSample],
                detector: FixationDetector, blinks: [BlinkEvent], expressions: [ExpressionSample],
                smile: [(timestampSeconds: Double, value: Double)]) {
        let clock = presentation.clock
        let end = presentation.offsetSeconds
            ?? [gaze.last?.timestampSeconds, expressions.last?.timestampSeconds, presentation.onsetSeconds].compactMap { $0 }.max()!
        // The furthest position reached: at the end, or at or just before an anchor (a seek back).
        let anchors = presentation.playback.map(\.timestampSeconds) + presentation.events.map(\.timestampSeconds)
        let reached = ([end] + anchors).flatMap { [$0, $0.nextDown] }.filter { $0 < end }
            .compactMap { clock.stimulusSeconds(at: $0) }.max() ?? 0
        self.sessionID = sessionID
        durationSeconds = reached
        pixelsPerDegree = detector.pointsPerDegree * placement.pixelsPerPoint
        let faced = gaze.filter { $0.trackingState != .missing }
        samples = Self.presentedSamples(faced, placement: placement, clock: clock)
        let detected = detector.detect(faced).fixations
        fixations = Self.presentedFixations(detected, placement: placement, clock: clock, onsetSeconds: presentation.onsetSeconds,
                                            endSeconds: end)
        quality = RecordingQuality.measure(gaze, faced: faced, fixations: detected, startSeconds: presentation.onsetSeconds,
                                           endSeconds: end, pointsPerDegree: detector.pointsPerDegree)
        blinkStarts = blinks.compactMap { clock.stimulusSeconds(at: $0.startSeconds) }.sorted()
        self.expressions = expressions.compactMap { sample in
            clock.stimulusSeconds(at: sample.timestampSeconds).map { TimedValue(seconds: $0, value: sample.probabilities) }
        }.sorted { $0.seconds < $1.seconds }
        self.smile = smile.compactMap { value in
            clock.stimulusSeconds(at: value.timestampSeconds).map { TimedValue(seconds: $0, value: value.value) }
        }.sorted { $0.seconds < $1.seconds }
    }

    /// The fixations under way while the presentation was on the screen, trimmed to onset…`endSeconds`
    /// (session seconds), each at its (trimmed) start's playback position; its centre is the whole fixation's.
    private static func presentedFixations(_ found: [Fixation], placement: StimulusPlacement, clock: PresentationClock,
                                           onsetSeconds: Double, endSeconds: Double) -> [ViewedFixation] {
        found.compactMap { fixation in
            let start = Swift.max(fixation.startSeconds, onsetSeconds), end = Swift.min(fixation.endSeconds, endSeconds)
            guard fixation.startSeconds >= onsetSeconds || fixation.endSeconds > onsetSeconds,
                  let position = clock.stimulusSeconds(at: start) else { return nil }
            return ViewedFixation(startSeconds: position, endSeconds: position + Swift.max(0, end - start),
                                  pixel: placement.pixel(Point2(fixation.x, fixation.y)))
        }
    }

    private static func presentedSamples(_ gaze: [GazeSample], placement: StimulusPlacement, clock: PresentationClock) -> [ViewedSample] {
        var result: [ViewedSample] = []
        for (index, sample) in gaze.enumerated() {
            guard let seconds = clock.stimulusSeconds(at: sample.timestampSeconds) else { continue }
            let next = index + 1 < gaze.count ? gaze[index + 1].timestampSeconds - sample.timestampSeconds : nil
            let previous = index > 0 ? sample.timestampSeconds - gaze[index - 1].timestampSeconds : nil
            let interval = next ?? previous ?? 0
            result.append(ViewedSample(seconds: seconds, pixel: placement.pixel(sample.point),
                                       durationSeconds: Swift.max(0, Swift.min(interval, maximumSampleSeconds))))
        }
        // Stable: samples at one paused position keep their recorded order.
        return result.enumerated().sorted { ($0.element.seconds, $0.offset) < ($1.element.seconds, $1.offset) }.map(\.element)
    }
}
