import ArgumentParser
import Foundation
import GazeAnalysis
import GazeModel
import JSONStream
import SessionStore

extension Gazerec {
    /// `gazerec show ID`: a readable summary of one session.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Summarise one session: duration, samples, achieved rate, blend shapes, device.",
            discussion: """
                With markers, each marker's interval (until the next marker) gets its own figures: where \
                the gaze was (the share of frames with a face and with gaze on the screen, the median gaze \
                point), blinks, when it starts (seconds after the session's begin; Unix seconds in --json), and what the face did (the share of frames each expression was the most probable in, for a \
                session recorded with --expressions, and the mean smile shape).
                """)

        @OptionGroup var store: ReadableStoreOptions

        @Argument(help: "The session id (case-insensitive).")
        var id: String

        @Flag(help: "Print the summary as a JSON object.")
        var json = false

        /// A count over the session's duration, per second ("-" without frames or duration). Frames are
        /// every analysed frame, with a face or not; gaze samples only frames with a face and gaze.
        static func perSecond(_ count: Int, _ durationSeconds: Double?) -> String {
            guard count > 0, let durationSeconds, durationSeconds > 0 else { return "-" }
            return Formatting.fixed(Double(count) / durationSeconds, 2)
        }

        /// The calibration a session's gaze came from, as its extension records it.
        static func calibrationText(_ gazerecExtension: SessionExtension?) -> String {
            guard let gazerecExtension else { return "-" }
            guard gazerecExtension.calibrationApplied == true, let calibration = gazerecExtension.calibration else {
                return "none (no gaze; 'gazerec recalibrate' can add it)"
            }
            var text = calibration.id
            if let points = calibration.accuracyPoints {
                text += ", validation accuracy \(Formatting.fixed(points, 1)) pt"
                if let degrees = calibration.accuracyDegrees { text += " (\(Formatting.fixed(degrees, 2))°)" }
            }
            if calibration.recalibratedAtSeconds != nil { text += ", recalibrated" }
            return text
        }

        /// One line per marker interval (its attention figures, and when it starts after the session's
        /// begin), each followed by where the gaze was (`IntervalGaze`: the median gaze point of its
        /// scan-path samples, when it has any) and what the face did in it.
        static func intervalLines(_ attention: AttentionReport?, _ expressions: ExpressionReport?,
                                  scanPath: [GazeSample] = [], beginSeconds: Double) -> [(String, String)] {
            var lines: [(String, String)] = []
            let intervals = attention?.intervals ?? []
            let gaze = IntervalGaze.of(scanPath, over: intervals)
            for (index, interval) in intervals.enumerated() {
                lines.append((index == 0 ? "Intervals" : "", AttentionText.text(interval, beginSeconds: beginSeconds)))
                if let x = gaze[index].medianX, let y = gaze[index].medianY {
                    lines.append(("", "  gaze: median at (\(Formatting.fixed(x, 0)), \(Formatting.fixed(y, 0))) pt "
                                  + "over \(gaze[index].samples) samples"))
                }
                if let expressions, index < expressions.intervals.count {
                    lines.append(("", "  face: " + ExpressionText.text(expressions.intervals[index].figures)))
                }
            }
            return lines
        }

        /// The saved video's file, frames and the frames left out of it (a camera's frames the writer could
        /// not keep up with); a video that holds fewer of the session's `frames` than that ended early
        /// (a write error: a full disk), and one whose recorder died was never counted.
        static func videoText(_ video: RecordingFacts.SavedVideo, frames: Int, interrupted: Bool) -> String {
            if interrupted && video.frames == 0 && video.droppedFrames == 0 {
                return "\(video.path), frames not counted (the recorder died before it could count them)"
            }
            let missing = frames - video.frames - video.droppedFrames
            if missing > 0 {
                return "\(video.path), \(video.frames) of the session's \(frames) frames: the video ended early (a write "
                    + "error, such as a full disk) and lacks the last \(missing)"
                    + (video.droppedFrames > 0 ? "; \(video.droppedFrames) more left out (writing fell behind the camera)" : "")
            }
            return "\(video.path), \(video.frames) frames, "
                + (video.droppedFrames == 0 ? "none left out"
                    : "\(video.droppedFrames) left out (writing fell behind the camera; reanalysis skips them)")
        }

        /// The scan path, read only when there are marker intervals to place it in.
        static func scanPath(_ database: SessionDatabase, _ summary: SessionSummary,
                             _ attention: AttentionReport?) throws -> [GazeSample] {
            attention?.intervals.isEmpty == false && summary.gazeSampleCount > 0
                ? try database.scanPath(id: summary.header.id).samples : []
        }

        /// The session's id, times, frames and gaze samples; the error that ended it early, if one did.
        static func overviewLines(_ summary: SessionSummary, frames: Int) -> [(String, String)] {
            let header = summary.header
            var lines: [(String, String)] = [
                ("Session", header.id),
                ("App ID", header.appID),
                ("Begin", "\(Formatting.isoTime(header.beginTimeSeconds)) (\(header.beginTimeSeconds))"),
                ("End", header.endTimeSeconds.map {
                    "\(Formatting.isoTime($0)) (\($0))" + (summary.interrupted ? ", interrupted: the recorder died; its last sample" : "")
                } ?? (summary.interrupted ? "interrupted" : "not ended")),
            ]
            if let endedBy = header.gazerecExtension?.endedBy {
                lines.append(("Ended by", endedBy + " (the recording ended early; nothing after its last stored frame was recorded)"))
            }
            lines += [
                ("Duration", summary.durationSeconds.map { Formatting.fixed($0, 3) + " s" } ?? "-"),
                ("Frames", frames > 0 ? "\(frames), \(Self.perSecond(frames, summary.durationSeconds)) frames per second"
                    : "none stored (not recorded by gazerec)"),
                ("Gaze samples", "\(summary.gazeSampleCount)"
                    + (summary.achievedRateHz.map { ", " + Formatting.fixed($0, 2) + " gaze samples per second" } ?? "")),
            ]
            return lines
        }

        func run() throws {
            let database = try store.openForReading(sessions: .named([id]))
            let summary = try database.summary(id: id)
            try database.verify(id: summary.header.id)
            let attention = try database.attention(id: summary.header.id)
            let frames = try database.frameCount(id: summary.header.id).count
            let expressions = try database.expressionReport(id: summary.header.id)
            if json {
                let gaze = IntervalGaze.of(try Self.scanPath(database, summary, attention), over: attention?.intervals ?? [])
                Console.output(try JSONDocument.text(SummaryJSON.value(summary, frames: frames, attention: attention,
                                                                       expressions: expressions,
                                                                       intervalGaze: attention?.intervals.isEmpty == false ? gaze : nil)))
                return
            }
            let header = summary.header
            let device = header.deviceInfo
            var lines = Self.overviewLines(summary, frames: frames)
            if summary.blendShapeSampleCounts.isEmpty {
                lines.append(("Blend shapes", "none"))
            } else {
                for (index, entry) in summary.blendShapeSampleCounts.enumerated() {
                    lines.append((index == 0 ? "Blend shapes" : "", "\(entry.name): \(entry.count) samples"))
                }
            }
            lines.append(("Device", "\(device.model), \(device.systemName) \(device.systemVersion)"))
            lines.append(("Screen", "\(Formatting.fixed(device.screenWidth, 0)) × \(Formatting.fixed(device.screenHeight, 0)) points"))
            lines.append(("gazerec data", header.gazerecExtension == nil ? "none" : "present"))
            if var video = header.gazerecExtension?.recorder?.savedVideo {
                video.path = database.resolvedVideoPath(video.path)
                lines.append(("Saved video", Self.videoText(video, frames: frames, interrupted: summary.interrupted)))
            }
            lines.append(("Calibration", Self.calibrationText(header.gazerecExtension)))
            if let eyes = header.gazerecExtension?.eyes { lines.append(("Eyes", EyeFigures.text(eyes))) }
            if let attention {
                lines.append(("Attention", AttentionText.text(attention.session)))
            }
            if let expressions { lines.append(("Expressions", ExpressionText.text(expressions.session))) }
            let scanPath = try Self.scanPath(database, summary, attention)
            lines += Self.intervalLines(attention, expressions, scanPath: scanPath, beginSeconds: header.beginTimeSeconds)
            for (index, warning) in (header.gazerecExtension?.warnings ?? []).enumerated() {
                lines.append((index == 0 ? "Warnings" : "", warning))
            }
            // At least as wide as the earlier "Achieved rate" label, so scripts cutting columns keep working.
            let width = max(13, lines.map(\.0.count).max() ?? 0)
            Console.output(lines.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }
                .joined(separator: "\n") + "\n")
        }
    }
}
