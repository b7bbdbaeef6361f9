import Foundation
import GazeAnalysis
import GazeModel
import JSONStream
import SessionStore

/// The JSON shape of a session summary (`list --json`, `show --json`).
enum SummaryJSON {
    static func value(_ summary: SessionSummary, frames: Int? = nil, attention: AttentionReport? = nil,
                      expressions: ExpressionReport? = nil, intervalGaze: [IntervalGaze]? = nil) throws -> JSONValue {
        let document = SummaryDocument(summary: summary, frames: frames, attention: attention?.jsonValue,
                                       expressions: expressions.map(ExpressionText.json),
                                       gaze: intervalGaze.map(SummaryDocument.gazeJSON))
        return try JSONValueEncoder().encode(document)
    }
}

/// A session summary as `list --json` and `show --json` write it: members in `CodingKeys` order,
/// `endTime`, `attention` and `expressions` only when known, `durationSeconds` and
/// `achievedRateHz` null when unknown, blend-shape sample counts by name; `endedBy` (the error that
/// ended the recording early: a full disk, a lost camera) only for such a session, `frames` (the
/// frames stored, with a face or not) in `show --json`.
struct SummaryDocument: Encodable {
    var summary: SessionSummary
    /// The session's stored frames (`show --json`; nil in `list --json`, which does not count them).
    var frames: Int?
    var attention: JSONValue?
    var expressions: JSONValue?
    /// Each marker interval's gaze (`show --json`).
    var gaze: JSONValue?

    enum CodingKeys: String, CodingKey {
        case id, appID, beginTime, endTime, durationSeconds, frames, gazeSamples, achievedRateHz, blendShapeSamples, interrupted
        case endedBy, deviceModel, attention, expressions, gaze
    }

    func encode(to encoder: any Encoder) throws {
        let header = summary.header
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(header.id, forKey: .id)
        try container.encode(header.appID, forKey: .appID)
        try container.encode(header.beginTimeSeconds, forKey: .beginTime)
        try container.encodeIfPresent(header.endTimeSeconds, forKey: .endTime)
        try container.encode(summary.durationSeconds, forKey: .durationSeconds)
        try container.encodeIfPresent(frames, forKey: .frames)
        try container.encode(summary.gazeSampleCount, forKey: .gazeSamples)
        try container.encode(summary.achievedRateHz, forKey: .achievedRateHz)
        var shapes = container.nestedContainer(keyedBy: JSONKey.self, forKey: .blendShapeSamples)
        for (name, count) in summary.blendShapeSampleCounts { try shapes.encode(count, forKey: JSONKey(name)) }
        try container.encode(summary.interrupted, forKey: .interrupted)
        try container.encodeIfPresent(header.gazerecExtension?.endedBy, forKey: .endedBy)
        try container.encode(header.deviceInfo.model, forKey: .deviceModel)
        try container.encodeIfPresent(attention, forKey: .attention)
        try container.encodeIfPresent(expressions, forKey: .expressions)
        try container.encodeIfPresent(gaze, forKey: .gaze)
    }

    /// `"gaze"`: each marker interval's label, start and end (Unix s), its scan-path samples and
    /// their median point (screen points; absent without samples).
    static func gazeJSON(_ intervals: [IntervalGaze]) -> JSONValue {
        .object([("intervals", .array(intervals.map { interval in
            var members: [(String, JSONValue)] = [("label", .string(interval.label)), ("start", .number(interval.start)),
                                                  ("end", .number(interval.end)), ("samples", .number(Double(interval.samples)))]
            if let x = interval.medianX, let y = interval.medianY { members += [("medianX", .number(x)), ("medianY", .number(y))] }
            return .object(members)
        }))])
    }
}
