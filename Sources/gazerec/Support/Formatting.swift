import Foundation
import GazeAnalysis
import GazeCore
import GazeModel
import JSONStream
import SessionStore

/// Plain-text formatting shared by the listing commands (locale-independent).
enum Formatting {
    /// `2020-07-24T21:40:43.445Z` for Unix seconds (`TextFormat.isoTime`).
    static func isoTime(_ seconds: Double) -> String { TextFormat.isoTime(seconds) }

    /// A number with fixed decimals and `.` as separator whatever the locale; never "-0.0" (`TextFormat.fixed`).
    static func fixed(_ value: Double, _ decimals: Int) -> String { TextFormat.fixed(value, decimals) }

    /// "1 session", "2 sessions": a count and its noun.
    static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    /// The note for a deleted calibration that kept sessions had been mapped with: `label` the
    /// app id it was named after, nil when it was named directly.
    static func calibrationSharedNote(_ id: String, named label: String?, keptSessions: [String]) -> String {
        "calibration \(id)" + (label.map { " was named \($0) and" } ?? "") + " also mapped the gaze of "
            + "\(counted(keptSessions.count, "kept session"))" + (label == nil ? "" : " of other app ids")
            + " (\(keptSessions.joined(separator: ", "))): their gaze stays as mapped, but recalibrate and validate "
            + "can no longer use it"
    }

    /// Left-aligned columns separated by two spaces.

    static func table(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        var widths = [Int](repeating: 0, count: first.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}

/// Blink figures in words, the same in every summary: blinks and long closures apart.
enum EyeFigures {
    static func text(_ summary: EyeSummary?) -> String {
        guard let summary else { return "no blinks (no face)" }
        let blinks = "\(summary.blinks) blink\(summary.blinks == 1 ? "" : "s")"
        let long = "\(summary.longClosures) long closure\(summary.longClosures == 1 ? "" : "s") (eyes shut over 0.5 s)"
        return blinks + ", " + long + ", \(Formatting.fixed(summary.blinksPerMinute, 1)) blinks/min, PERCLOS "
            + Formatting.fixed(100 * summary.perclos, 1) + " %"
    }
}

/// Attention figures as `show` prints them.
enum AttentionText {
    static func text(_ figures: AttentionFigures) -> String {
        var parts = ["face \(percent(figures.faceShare))"]
        if let onScreen = figures.onScreenShare { parts.append("gaze on screen \(percent(onScreen))") }
        if let eyes = figures.eyes {
            parts.append("\(eyes.blinks) blink\(eyes.blinks == 1 ? "" : "s")")
            parts.append("PERCLOS \(percent(eyes.perclos))")
        }
        return "\(figures.frames) frames: " + parts.joined(separator: ", ")
    }

    /// "A (0.3 s) from +1.250 s: …": the label, the length, and the start after the session's begin.
    static func text(_ interval: IntervalAttention, beginSeconds: Double) -> String {
        "\(interval.label) (\(Formatting.fixed(interval.end - interval.start, 1)) s) from "
            + "+\(Formatting.fixed(interval.start - beginSeconds, 3)) s: " + text(interval.figures)
    }

    private static func percent(_ share: Double) -> String { Formatting.fixed(100 * share, 1) + " %" }
}
