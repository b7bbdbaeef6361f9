import ArgumentParser
import Foundation
import GazeCapture
import GazeModel
import GazeVision
import JSONStream
import Recorder

extension Gazerec {
    /// `gazerec position`: seat the participant before calibrating, live or as a gate for scripts.
    struct Position: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Seat the participant before calibrating: where the face sits, the light, one line of advice.",
            discussion: """
                On a terminal: the camera's picture as a frame with the face and the room it needs for head \
                turns, the figures, and one line of advice at a time, most important first ("ok" when all is in \
                range). With --json, or when stdout is not a terminal: one JSON line per second on stdout (t, face, \
                faceWidthPixels, eyeWidthPixels, distanceMillimetres, yawDegrees, pitchDegrees, brightness, contrast, \
                glare, centred, ok, advice). Exits 0 once everything stayed in range for --hold seconds, 1 when \
                --duration, the video or a key (q, Esc, Ctrl-C) ended it first: 'gazerec position --duration 30 && \
                gazerec calibrate' gates a session. The ranges are documented in docs/Recording.md.
                """)

        @OptionGroup var capture: CaptureOptions

        @Option(parsing: .unconditional, help: ArgumentHelp("Give up after this many seconds (default: until the seating holds, or a key or Ctrl-C).",
                                   valueName: "seconds"))
        var duration: Double?

        @Option(parsing: .unconditional, help: ArgumentHelp("How long everything must stay in range.", valueName: "seconds"))
        var hold: Double = 2

        @Flag(help: "One JSON line per second on stdout instead of the live view.")
        var json = false

        @OptionGroup var seating: SeatingOptions

        @OptionGroup var vision: VisionOptions

        @OptionGroup var picture: PictureOptions

        func validate() throws {
            if let duration, !(duration > 0 && duration.isFinite) {
                throw ValidationError("--duration must be a positive number of seconds.")
            }
            if !(hold >= 0 && hold.isFinite) { throw ValidationError("--hold must be zero or a positive number of seconds.") }
            try vision.validate()
        }

        func run() throws {
            let live = !json && isatty(1) == 1 && TerminalScreen.available
            try vision.checkModelExists()
            let visionInput = try vision.input(capture.request(paced: live, mirror: picture.mirror, rotation: picture.rotate))
            defer { visionInput.stop() }
            let source = visionInput.frames, pipeline = visionInput.pipeline
            let stop = StopRequest()
            let signals = SignalHandling(stop: stop)
            defer { signals.restore() }
            let guide = PositionGuide(thresholds: try seating.thresholds(), holdSeconds: hold, durationSeconds: duration)
            let outcome: PositionGuide.Outcome
            if live {
                outcome = try PositionView.run(guide, source: source, pipeline: pipeline, stop: stop)
            } else {
                let lines = SeatingLines()
                outcome = try guide.run(source, pipeline: pipeline, shouldStop: { stop.isRequested }, report: lines.write)
            }
            if outcome.held {
                Console.note("seated: everything stayed in range for \(Formatting.fixed(hold, 1)) s")
                return
            }
            let advice = outcome.lastReport?.adviceWithOption ?? "not a second of frames came"
            Console.note("not seated after \(Formatting.fixed(outcome.elapsedSeconds, 1)) s: "
                         + (advice.isEmpty ? "in range, but not yet for \(Formatting.fixed(hold, 1)) s" : advice))
            throw ExitCode.failure
        }
    }
}

/// The seating ranges, settable from the command line (defaults: `SeatingThresholds`).
struct SeatingOptions: ParsableArguments {
    @Option(name: .customLong("min-eye-pixels"), parsing: .unconditional,
            help: ArgumentHelp("The eyes' width, corner to corner, at least (default \(Formatting.fixed(SeatingThresholds().minimumEyeWidthPixels, 0))).",
                               valueName: "pixels"))
    var minimumEyePixels: Double?

    @Option(name: .customLong("distance-range"),
            help: ArgumentHelp("The head's distance from the camera in millimetres (default "
                               + NumberRange(SeatingThresholds().distanceRangeMillimetres).text(decimals: 0) + ").",
                               valueName: "min-max"))
    var distanceRange: NumberRange?

    @Option(name: .customLong("brightness-range"),
            help: ArgumentHelp("The face's mean luma, 0 black to 1 white (default "
                               + NumberRange(SeatingThresholds().brightnessRange).text(decimals: 2) + ").",
                               valueName: "min-max"))
    var brightnessRange: NumberRange?

    func validate() throws {
        if let minimumEyePixels, !(minimumEyePixels >= 0 && minimumEyePixels.isFinite) {
            throw ValidationError("--min-eye-pixels must be zero or a positive number of pixels.")
        }
        if let brightnessRange, brightnessRange.lower < 0 || brightnessRange.upper > 1 {
            throw ValidationError("--brightness-range must lie within 0-1 (0 black, 1 white).")
        }
    }

    func thresholds() throws -> SeatingThresholds {
        var thresholds = SeatingThresholds()
        if let minimumEyePixels { thresholds.minimumEyeWidthPixels = minimumEyePixels }
        if let distanceRange { thresholds.distanceRangeMillimetres = distanceRange.lower...distanceRange.upper }
        if let brightnessRange { thresholds.brightnessRange = brightnessRange.lower...brightnessRange.upper }
        return thresholds
    }
}

/// `MIN-MAX`, two non-negative numbers, the first not above the second.
struct NumberRange: ExpressibleByArgument {
    let lower: Double
    let upper: Double

    init(_ range: ClosedRange<Double>) {
        (lower, upper) = (range.lowerBound, range.upperBound)
    }

    init?(argument: String) {
        let parts = argument.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let lower = Double(parts[0]), let upper = Double(parts[1]), lower.isFinite,
              upper.isFinite, lower <= upper else { return nil }
        (self.lower, self.upper) = (lower, upper)
    }

    func text(decimals: Int) -> String { Formatting.fixed(lower, decimals) + "-" + Formatting.fixed(upper, decimals) }
}

/// Seating reports as NDJSON on stdout, one line each, flushed per line.
final class SeatingLines {
    private let sink = FileByteSink.standardOutput()
    private var open = true

    init() { signal(SIGPIPE, SIG_IGN) }

    func write(_ report: SeatingReport) {
        guard open else { return }
        do {
            try JSONDocument.bytes(encoding: SeatingLine(report: report), pretty: false).withUnsafeBytes { try sink.write($0) }
        } catch {
            open = false
        }
    }
}

/// One line of `position --json`: its members in `CodingKeys` order, null for a figure not measured
/// (no face), numbers rounded to what the figure can tell.
struct SeatingLine: Encodable {
    let report: SeatingReport

    enum CodingKeys: String, CodingKey {
        case t, face, faceWidthPixels, eyeWidthPixels, distanceMillimetres, yawDegrees, pitchDegrees, brightness, contrast
        case glare, centred, ok, advice
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(report.timeSeconds.rounded(toDecimals: 3), forKey: .t)
        try container.encode(report.face, forKey: .face)
        let figures: [(CodingKeys, Double?, Int)] = [
            (.faceWidthPixels, report.faceWidthPixels, 1), (.eyeWidthPixels, report.eyeWidthPixels, 1),
            (.distanceMillimetres, report.distanceMillimetres, 0), (.yawDegrees, report.yawDegrees, 1),
            (.pitchDegrees, report.pitchDegrees, 1), (.brightness, report.brightness, 3), (.contrast, report.contrast, 3),
            (.glare, report.glare, 3),
        ]
        for (key, value, decimals) in figures {
            try container.encode(value.map { $0.rounded(toDecimals: decimals) }, forKey: key)
        }
        try container.encode(report.centred, forKey: .centred)
        try container.encode(report.ok, forKey: .ok)
        try container.encode(report.adviceWithOption, forKey: .advice)
    }
}
