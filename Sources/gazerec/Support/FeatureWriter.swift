import Foundation
import GazeCore
import GazeModel
import JSONStream
import SessionStore

/// Output format of `analyze`.
enum AnalysisFormat: String, CaseIterable {
    case ndjson
    case csv
}

/// Writes per-frame features (or blink events) as NDJSON or CSV with fixed, documented precision.
///
/// Columns (see docs/ExportFormat.md): frame, timestamp, trackingState, confidence, face,
/// detected, earLeft, earRight, opennessLeft, opennessRight, blink, pupilLeftX, pupilLeftY,
/// pupilLeftU, pupilLeftV, pupilRightX, …, yawDegrees, pitchDegrees, rollDegrees, tx, ty, tz,
/// then x0…x67, y0…y67 with --landmarks. Missing values are null (NDJSON) or empty (CSV).
final class FeatureWriter {
    private let format: AnalysisFormat
    private let includeLandmarks: Bool
    private let json: JSONWriter
    /// The CSV rows (header lines included), through the one CSV writer.
    private let csv: CSVWriter
    private let sink: ByteSink
    /// Added to every time written: 0 for seconds from the video's first frame, the recording's
    /// start in Unix seconds for Unix time.
    private let timeOffsetSeconds: Double
    /// Whether frame rows end with the expression probabilities (`expressionColumns`).
    private let includeExpressions: Bool

    init(format: AnalysisFormat, includeLandmarks: Bool, sink: ByteSink, timeOffsetSeconds: Double = 0,
         includeExpressions: Bool = false) {
        self.format = format
        self.includeExpressions = includeExpressions
        self.includeLandmarks = includeLandmarks
        self.timeOffsetSeconds = timeOffsetSeconds
        self.sink = sink
        json = JSONWriter(sink: sink)
        csv = CSVWriter(sink: sink)
    }

    static let frameColumns = [
        "frame", "timestamp", "trackingState", "confidence", "face", "detected",
        "earLeft", "earRight", "opennessLeft", "opennessRight", "blink",
        "pupilLeftX", "pupilLeftY", "pupilLeftU", "pupilLeftV",
        "pupilRightX", "pupilRightY", "pupilRightU", "pupilRightV",
        "yawDegrees", "pitchDegrees", "rollDegrees", "tx", "ty", "tz",
    ]

    /// The expression columns of frame rows with --expressions: each expression's probability, 0…1
    /// (the names of the session CSV's expression columns).
    static let expressionColumns = CSVSessionWriter.expressionColumnNames

    static let eventColumns = ["start", "end", "duration", "eyes", "kind", "minimumOpenness"]

    /// A cell value with its precision.
    enum Value {
        case int(Int)
        case number(Double, decimals: Int)
        case text(String)
        case bool(Bool)
        case missing
    }

    func writeFrameHeader() throws {
        guard format == .csv else { return }
        var columns = Self.frameColumns
        if includeLandmarks {
            columns += (0..<FaceLandmarks.count).map { "x\($0)" } + (0..<FaceLandmarks.count).map { "y\($0)" }
        }
        if includeExpressions { columns += Self.expressionColumns }
        try csv.row(columns)
    }

    func writeEventHeader() throws {
        guard format == .csv else { return }
        try csv.row(Self.eventColumns)
    }

    /// One frame's row; `expression` fills the expression columns (written when asked for, empty without a face).
    func write(_ features: FrameFeatures, expression: ExpressionProbabilities? = nil) throws {
        let pose = features.headPose
        func pupil(_ eye: Eye) -> [Value] {
            guard let p = features.pupils[eye] else { return [.missing, .missing, .missing, .missing] }
            return [.number(p.centre.x, decimals: 2), .number(p.centre.y, decimals: 2),
                    .number(p.normalized.x, decimals: 4), .number(p.normalized.y, decimals: 4)]
        }
        func optional(_ value: Double?, _ decimals: Int) -> Value { value.map { .number($0, decimals: decimals) } ?? .missing }
        var values: [Value] = [
            .int(features.frameIndex), .number(features.timestampSeconds + timeOffsetSeconds, decimals: 6),
            .text(features.trackingState.rawValue), .number(features.confidence, decimals: 4),
            .bool(features.face != nil), .bool(features.face?.detected ?? false),
            optional(features.aspectRatio[.left], 4), optional(features.aspectRatio[.right], 4),
            optional(features.openness[.left], 4), optional(features.openness[.right], 4),
            .bool(features.blinking),
        ]
        values += pupil(.left) + pupil(.right)
        values += [optional(pose?.yawDegrees, 3), optional(pose?.pitchDegrees, 3), optional(pose?.rollDegrees, 3),
                   optional(pose?.translation.x, 1), optional(pose?.translation.y, 1), optional(pose?.translation.z, 1)]
        var columns = Self.frameColumns
        if includeLandmarks {
            let points = features.face?.landmarks.points
            values += (0..<FaceLandmarks.count).map { optional(points?[$0].x, 1) }
            values += (0..<FaceLandmarks.count).map { optional(points?[$0].y, 1) }
            columns += (0..<FaceLandmarks.count).map { "x\($0)" } + (0..<FaceLandmarks.count).map { "y\($0)" }
        }
        if includeExpressions {
            values += (0..<Self.expressionColumns.count).map { optional(expression?.values[$0], 4) }
            columns += Self.expressionColumns
        }
        try row(columns, values)
    }

    func write(_ event: BlinkEvent) throws {
        try row(Self.eventColumns, [
            .number(event.startSeconds + timeOffsetSeconds, decimals: 6), .number(event.endSeconds + timeOffsetSeconds, decimals: 6),
            .number(event.durationSeconds, decimals: 6), .text(event.eyes.rawValue), .text(event.kind.rawValue),
            .number(event.minimumOpenness, decimals: 4),
        ])
    }

    /// Sends what is buffered to the sink (one of the two writers holds nothing: each format uses one).
    func flush() throws {
        try json.flush()
        try csv.flush()
    }

    private func row(_ columns: [String], _ values: [Value]) throws {
        switch format {
        case .ndjson:
            try json.beginObject()
            for (name, value) in zip(columns, values) {
                try json.key(name)
                switch value {
                case .int(let number): try json.integer(Int64(number))
                case .number(let number, let decimals): try json.number(number.rounded(toDecimals: decimals))
                case .text(let text): try json.string(text)
                case .bool(let flag): try json.bool(flag)
                case .missing: try json.null()
                }
            }
            try json.endObject()
            try json.byte(0x0A)
        case .csv:
            let cells = values.map { value -> String in
                switch value {
                case .int(let number): return String(number)
                case .number(let number, let decimals): return Formatting.fixed(number, decimals)
                case .text(let text): return text
                case .bool(let flag): return flag ? "1" : "0"
                case .missing: return ""
                }
            }
            try csv.row(cells)
        }
    }}
