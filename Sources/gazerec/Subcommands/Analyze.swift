import ArgumentParser
import Foundation
import GazeAnalysis
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import JSONStream
import Recorder
import SessionStore

extension AnalysisFormat: ExpressibleByArgument {}

/// What `analyze` timestamps count.
enum AnalysisTime: String, CaseIterable, ExpressibleByArgument {
    /// Seconds from the video's first frame (its presentation times).
    case video
    /// Unix seconds: the recording's start from the file's creation_time tag, plus the presentation time.
    case unix
}

extension Gazerec {
    /// `gazerec analyze`: every frame of a video through the vision pipeline.
    struct Analyze: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Analyse a recorded video: per-frame eye openness, blinks, pupils and head pose.",
            discussion: """
                Every frame of the video (no frame dropped) goes through face detection/tracking, \
                dlib's 68 landmarks and the eye features; one row per frame goes to stdout \
                (NDJSON or CSV, columns in docs/ExportFormat.md). With --events, one row per blink \
                instead. A summary and, for long files, progress go to stderr. Times are seconds \
                from the video's first frame, or with --time unix Unix seconds from the recording \
                start the file's metadata gives (its creation_time tag, as cameras and recorders write it).
                """)

        @Option(name: .long, help: ArgumentHelp("The video file (any container FFmpeg reads; a still image works too).",
                                                valueName: "video"))
        var input: String

        @Option(help: "Output format.")
        var format: AnalysisFormat = .ndjson

        @Flag(help: "Add the 68 landmarks (x0…x67, y0…y67, image pixels) to every row.")
        var landmarks = false

        @Flag(help: "Write one row per blink event instead of one per frame.")
        var events = false

        @Option(help: "What the timestamps count: 'video' (seconds from the first frame) or 'unix' (the file's creation_time plus that).")
        var time: AnalysisTime = .video

        @OptionGroup var vision: VisionOptions

        @OptionGroup var picture: PictureOptions

        @OptionGroup var expressionOptions: ExpressionOptions

        @Flag(help: "No progress or summary on stderr.")
        var quiet = false

        func validate() throws {
            if events && landmarks { throw ValidationError("--landmarks applies to frame rows, not to --events.") }
            if events && expressionOptions.expressions {
                throw ValidationError("--expressions applies to frame rows, not to --events.")
            }
            try vision.validate()
        }

        /// Writes every frame's row (or every blink's, with --events) and returns the eye figures: the
        /// same a recording stores under "gazerec"."eyes", from the same frames and events.
        private func write(_ analysis: VideoAnalysis, to writer: FeatureWriter, progress: Progress) throws -> EyeStatistics {
            let statistics = try analysis.run(observe: { observation in
                switch observation {
                case .frame(let features, let expression): if !events { try writer.write(features, expression: expression) }
                case .blink(let event): if events { try writer.write(event) }
                }
            }, notUpright: { _ = Self.warnNotUpright($0, atSeconds: $1) }, progress: { progress.update($0) })
            try writer.flush()
            return statistics
        }

        /// Says once that frames of a face that is not upright are not tracked (with the turn that
        /// would make it upright); returns whether it said so.
        /// The blink rule `GAZEREC_BENCH_BLINK_RULE` names, for Scripts/bench_blinks.py to rank the
        /// candidates on labelled clips (nil: the shipped rule). Not a documented option: what a
        /// recording measures always uses the shipped rule.
        static func benchmarkBlinkRule() throws -> BlinkRule? {
            guard let name = ProcessInfo.processInfo.environment["GAZEREC_BENCH_BLINK_RULE"], !name.isEmpty else { return nil }
            guard let rule = BlinkRule(rawValue: name) else {
                throw UsageError(message: "GAZEREC_BENCH_BLINK_RULE=\(name) is no blink rule; use one of "
                                 + BlinkRule.allCases.map(\.rawValue).joined(separator: ", ") + ", or unset it.")
            }
            return rule
        }

        static func warnNotUpright(_ verdict: FaceUprightness?, atSeconds: Double) -> Bool {
            guard let verdict, let text = verdict.warning(atSeconds: atSeconds) else { return false }
            if Console.stderrIsTerminal { Console.write("\r\u{1B}[K") }
            if case .turned(let degrees) = verdict { Console.note("warning: \(text) (--rotate \(degrees))") } else {
                Console.note("warning: " + text)
            }
            return true
        }

        func run() throws {
            try vision.checkModelExists()
            let expressionStage = try expressionOptions.checkedFiles().map { try ExpressionStage(files: $0) }
            // With a second core, decoding runs ahead on it (losslessly) while the model loads and
            // frames are processed; on one core everything runs in line, in order.
            let opened = try vision.input(FrameSourceRequest(.file(path: input), mirror: picture.mirror, rotation: picture.rotate),
                                          modelFirst: false, readAhead: AvailableCores.count > 1 ? 32 : nil)
            defer { opened.stop() }
            let video = opened.opened.video!, source = opened.frames, pipeline = opened.pipeline
            if let rule = try Self.benchmarkBlinkRule() { pipeline.useBlinkRule(rule) }
            var offset = 0.0
            if time == .unix {
                guard let created = video.creationTimeSeconds else {
                    throw UsageError(message: "--time unix: \(input) does not say when it was recorded (no creation_time in "
                                     + "its metadata), so its times can only count from its first frame. Leave out --time unix.")
                }
                offset = created
            }
            let writer = FeatureWriter(format: format, includeLandmarks: landmarks, sink: FileByteSink.standardOutput(),
                                       timeOffsetSeconds: offset, includeExpressions: expressionStage != nil)
            if events { try writer.writeEventHeader() } else { try writer.writeFrameHeader() }

            let progress = Progress(total: video.frameCountHint, enabled: !quiet)
            let start = DispatchTime.now().uptimeNanoseconds
            let statistics = try write(VideoAnalysis(vision: opened, expressions: expressionStage), to: writer, progress: progress)
            progress.finish()
            guard !quiet else { return }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let frames = pipeline.framesProcessed
            let facePercent = frames > 0 ? 100 * Double(pipeline.framesWithFace) / Double(frames) : 0
            Console.note("analysed \(frames) frames of \(source.name) (\(source.width)×\(source.height), "
                         + "\(Formatting.fixed(source.framesPerSecond, 2)) fps): face in \(Formatting.fixed(facePercent, 1)) %, "
                         + EyeFigures.text(statistics.summary) + ", \(pipeline.tracker.detectorRuns) detector runs, "
                         + "\(Formatting.fixed(Double(frames) / max(seconds, 1e-9), 0)) frames/s")
        }
    }
}
