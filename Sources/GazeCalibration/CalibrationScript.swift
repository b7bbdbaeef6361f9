import Foundation
import GazeCore
import GazeModel

/// A target schedule for non-interactive calibration (`calibrate --script FILE`).
///
/// Plain text, one directive per line, `#` starts a comment:
///
///     screen 1920x1080                 # optional; --screen must agree when both are given
///     settle 0.5                       # optional; seconds after a target appears before collecting
///     calibrate 960 540 0.0 2.0        # kind, x, y (screen points or percent: 50%), start, end (s)
///     validate 30% 30% 20.0 22.0
///
/// Times count from the first frame of the input. Windows must not overlap; every calibration
/// target comes before the first validation target (the mapping is fitted between them).
public struct CalibrationScript: Sendable, Equatable {
    public var screenWidth: Double?
    public var screenHeight: Double?
    public var settleSeconds: Double?
    /// Positions may be fractions of the screen until `resolved(width:height:)`.
    public var entries: [Entry]

    public struct Entry: Sendable, Equatable {
        public var kind: CalibrationTarget.Kind
        public var x: Coordinate
        public var y: Coordinate
        public var startSeconds: Double
        public var endSeconds: Double
        public var line: Int
    }

    public enum Coordinate: Sendable, Equatable {
        case points(Double)
        case percent(Double)

        func resolved(_ extent: Double) -> Double {
            switch self {
            case .points(let value): return value
            case .percent(let value): return value / 100 * extent
            }
        }
    }

    /// Why a script could not be read: file, line and what to write instead.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public var file: String
        public var line: Int
        public var reason: String
        public var description: String {
            "cannot read calibration script \(file)\(line > 0 ? ":\(line)" : ""): \(reason). "
                + "See docs/Calibration.md for the script format."
        }
    }

    /// Parses a script's text; `file` names it in errors.
    public init(text: String, file: String) throws {
        entries = []
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = offset + 1
            let content = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let directive = fields.first else { continue }
            func fail(_ reason: String) -> ParseError { ParseError(file: file, line: lineNumber, reason: reason) }
            switch directive.lowercased() {
            case "screen":
                let parts = fields.count == 2 ? fields[1].lowercased().split(separator: "x") : []
                guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]), width > 0, height > 0 else {
                    throw fail("expected 'screen WIDTHxHEIGHT' in screen points, e.g. 'screen 1920x1080'")
                }
                (screenWidth, screenHeight) = (width, height)
            case "settle":
                guard fields.count == 2, let seconds = Double(fields[1]), seconds >= 0, seconds.isFinite else {
                    throw fail("expected 'settle SECONDS' with a number ≥ 0")
                }
                settleSeconds = seconds
            case "calibrate", "validate":
                guard fields.count == 5 else {
                    throw fail("expected '\(directive) X Y START END' (5 fields), got \(fields.count)")
                }
                guard let x = Self.coordinate(fields[1]), let y = Self.coordinate(fields[2]) else {
                    throw fail("X and Y must be numbers of screen points or percentages like 50%")
                }
                guard let start = Double(fields[3]), let end = Double(fields[4]), start.isFinite, end.isFinite,
                      start >= 0, end > start else {
                    throw fail("START and END must be seconds from the first frame with END > START ≥ 0")
                }
                entries.append(Entry(kind: directive.lowercased() == "calibrate" ? .calibration : .validation,
                                     x: x, y: y, startSeconds: start, endSeconds: end, line: lineNumber))
            default:
                throw fail("unknown directive '\(directive)' (expected screen, settle, calibrate or validate)")
            }
        }
        guard !entries.isEmpty else { throw ParseError(file: file, line: 0, reason: "it has no calibrate lines") }
        let sorted = entries.sorted { $0.startSeconds < $1.startSeconds }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where next.startSeconds < previous.endSeconds {
            throw ParseError(file: file, line: next.line, reason: "its window overlaps the one on line \(previous.line)")
        }
        if let firstValidation = sorted.firstIndex(where: { $0.kind == .validation }),
           let late = sorted[firstValidation...].first(where: { $0.kind == .calibration }) {
            throw ParseError(file: file, line: late.line,
                             reason: "calibration targets must all come before the first validation target")
        }
        entries = sorted
    }

    /// Refuses a script with fewer calibration targets than a mapping needs, before any frame
    /// is processed (naming the script, not an interactive layout).
    public func requireCalibrationTargets(_ minimum: Int, file: String) throws {
        let count = entries.filter { $0.kind == .calibration }.count
        guard count >= minimum else {
            throw ParseError(file: file, line: 0, reason: "it lists \(count) calibration target\(count == 1 ? "" : "s"); "
                             + "a mapping needs at least \(minimum). Add calibrate lines")
        }
    }

    /// Reads and parses a script file.
    public init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ParseError(file: path, line: 0, reason: "the file cannot be read (does it exist?)")
        }
        try self.init(text: String(decoding: data, as: UTF8.self), file: path)
    }

    static func coordinate(_ text: String) -> Coordinate? {
        if text.hasSuffix("%") {
            guard let value = Double(text.dropLast()), value.isFinite else { return nil }
            return .percent(value)
        }
        guard let value = Double(text), value.isFinite else { return nil }
        return .points(value)
    }

    /// The targets on a screen of this size, in time order.
    public func targets(width: Double, height: Double) -> [CalibrationTarget] {
        entries.map {
            CalibrationTarget(kind: $0.kind, position: Point2($0.x.resolved(width), $0.y.resolved(height)),
                              startSeconds: $0.startSeconds, endSeconds: $0.endSeconds)
        }
    }
}
