import Foundation
import GazeAnalysis
import GazeModel
import JSONStream

/// The one codec of the `"gazerec"` extension object: `SessionExtension` ⇄ JSON.
///
/// Reading is lenient member by member: a member of a known name whose value does not have the
/// expected shape (a hand-edited file, another version) is kept as an unknown member rather
/// than refused, and every member keeps its text, so an unchanged extension is written back
/// byte for byte.
extension SessionExtension {
    /// Reads an extension object's members (nil for anything but an object).
    public init?(json: JSONValue) {
        guard case .object(let pairs) = json else { return nil }
        self.init(members: pairs.map { name, value in
            let text = value.compactText
            return Member(name: name, value: Self.decode(name, value) ?? .other(json: text), verbatim: text)
        })
    }

    /// Reads the compact text stored with a session; nil when absent or not an object.
    public init?(storedText: String?) {
        guard let storedText, let value = try? JSONValue.parse(Array(storedText.utf8), name: "stored extension") else {
            return nil
        }
        self.init(json: value)
    }

    /// The members as JSON values, in order: unchanged members exactly as read.
    public var jsonMembers: [(String, JSONValue)] {
        members.map { member in
            if let verbatim = member.verbatim, let value = try? JSONValue.parse(Array(verbatim.utf8)) {
                return (member.name, value)
            }
            return (member.name, Self.encode(member.value))
        }
    }

    /// The compact text stored with a session.
    public var storedText: String { JSONValue.object(jsonMembers).compactText }

    static func decode(_ name: String, _ value: JSONValue) -> Value? {
        switch (name, value) {
        case (Name.formatVersion, .number(let number)) where number == number.rounded() && abs(number) < 1e9:
            return .formatVersion(Int(number))
        case (Name.recorder, _):
            return RecordingFacts(json: value).map { .recorder($0) }
        case (Name.calibrationApplied, .bool(let flag)):
            return .calibrationApplied(flag)
        case (Name.calibration, _):
            return CalibrationReference(json: value).map { .calibration($0) }
        case (Name.smoothing, _):
            return GazeSmoothing(json: value).map { .smoothing($0) }
        case (Name.endedBy, .string(let text)):
            return .endedBy(text)
        case (Name.interrupted, .bool(let flag)):
            return .interrupted(flag)
        case (Name.eyes, _):
            guard case .number(let blinks)? = value["blinks"], case .number(let long)? = value["longClosures"],
                  case .number(let rate)? = value["blinksPerMinute"], case .number(let perclos)? = value["perclos"],
                  case .number(let frames)? = value["framesWithFace"] else { return nil }
            return .eyes(EyeSummary(blinks: Int(blinks), longClosures: Int(long), blinksPerMinute: rate, perclos: perclos,
                                    framesWithFace: Int(frames)))
        case (Name.reanalysis, _):
            return ReanalysisFacts(json: value).map { .reanalysis($0) }
        case (Name.warnings, .array(let elements)):
            let texts = elements.compactMap { if case .string(let text) = $0 { text } else { nil } }
            return texts.count == elements.count ? .warnings(texts) : nil
        default:
            return nil
        }
    }

    static func encode(_ value: Value) -> JSONValue {
        switch value {
        case .formatVersion(let version): return .number(Double(version))
        case .recorder(let facts): return facts.jsonValue
        case .calibrationApplied(let flag): return .bool(flag)
        case .calibration(let reference): return reference.jsonValue
        case .smoothing(let smoothing): return smoothing.jsonValue
        case .endedBy(let text): return .string(text)
        case .interrupted(let flag): return .bool(flag)
        case .warnings(let texts): return .array(texts.map { .string($0) })
        case .reanalysis(let facts): return facts.jsonValue
        case .eyes(let summary):
            return .object([("blinks", .number(Double(summary.blinks))), ("longClosures", .number(Double(summary.longClosures))),
                            ("blinksPerMinute", .number(summary.blinksPerMinute)), ("perclos", .number(summary.perclos)),
                            ("framesWithFace", .number(Double(summary.framesWithFace)))])
        case .other(let text): return (try? JSONValue.parse(Array(text.utf8))) ?? .null
        }
    }
}

extension RecordingFacts {
    /// The `recorder` object's member names, each spelled here only, in the order a recorder
    /// writes them (`camera` or `input` names the source, as `source` says).
    enum Key: String {
        case version, source, camera, input, resolution, requestedFramesPerSecond, model, headPoseModel, blinkRule
        case uprightRule
        case focalLengthPixels, mirrored, cameraControls, savedVideo, grantedFramesPerSecond, achievedFramesPerSecond, frames, framesWithFace
        case droppedFrames, detectorRuns, lagMedianMilliseconds, lagP95Milliseconds, cpuSeconds, cpuPercentOfOneCore
        case seatingAdvice
    }

    /// The members of a `savedVideo` object.
    enum VideoKey: String {
        case path, frames, droppedFrames
    }

    /// The optional figures, written after the required members and `savedVideo`, in this order.
    private var figures: [(Key, Double?)] {
        [(.grantedFramesPerSecond, grantedFramesPerSecond), (.achievedFramesPerSecond, achievedFramesPerSecond),
         (.frames, frames.map(Double.init)), (.framesWithFace, framesWithFace.map(Double.init)),
         (.droppedFrames, droppedFrames.map(Double.init)), (.detectorRuns, detectorRuns.map(Double.init)),
         (.lagMedianMilliseconds, lagMedianMilliseconds), (.lagP95Milliseconds, lagP95Milliseconds),
         (.cpuSeconds, cpuSeconds), (.cpuPercentOfOneCore, cpuPercentOfOneCore)]
    }

    /// The `recorder` object, members in the order a recorder writes them.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = []
        func add(_ key: Key, _ value: JSONValue?) { if let value { members.append((key.rawValue, value)) } }
        add(.version, .string(version))
        add(.source, .string(sourceKind.rawValue))
        add(sourceKind == .camera ? .camera : .input, .string(sourceName))
        add(.resolution, .array([.number(Double(width)), .number(Double(height))]))
        add(.requestedFramesPerSecond, .number(requestedFramesPerSecond))
        add(.model, .string(modelPath))
        add(.headPoseModel, headPoseModel.map(JSONValue.string))
        add(.blinkRule, blinkRule.map(JSONValue.string))
        add(.uprightRule, uprightRule.map(JSONValue.string))
        add(.focalLengthPixels, focalLengthPixels.map(JSONValue.number))
        add(.mirrored, mirrored.map { .string($0.rawValue) })
        add(.cameraControls, cameraControls.map { .object($0.map { ($0.name, .number(Double($0.value))) }) })
        add(.savedVideo, savedVideo.map {
            .object([(VideoKey.path.rawValue, .string($0.path)), (VideoKey.frames.rawValue, .number(Double($0.frames))),
                     (VideoKey.droppedFrames.rawValue, .number(Double($0.droppedFrames)))])
        })
        for (key, value) in figures { add(key, value.map(JSONValue.number)) }
        add(.seatingAdvice, seatingAdvice.map(JSONValue.string))
        return .object(members)
    }

    init?(json: JSONValue) {
        func member(_ key: Key) -> JSONValue? { json[key.rawValue] }
        func number(_ key: Key) -> Double? { if case .number(let value)? = member(key) { value } else { nil } }
        guard case .string(let version)? = member(.version), case .string(let kindText)? = member(.source),
              let kind = SourceKind(rawValue: kindText),
              case .string(let name)? = member(kind == .camera ? .camera : .input),
              let resolution = member(.resolution)?.arrayValue, resolution.count == 2,
              case .number(let width) = resolution[0], case .number(let height) = resolution[1],
              let requested = number(.requestedFramesPerSecond),
              case .string(let model)? = member(.model) else { return nil }
        self.init(version: version, sourceKind: kind, sourceName: name, width: Int(width), height: Int(height),
                  requestedFramesPerSecond: requested, modelPath: model)
        if case .string(let headPoseModel)? = member(.headPoseModel) { self.headPoseModel = headPoseModel }
        if case .string(let blinkRule)? = member(.blinkRule) { self.blinkRule = blinkRule }
        if case .string(let uprightRule)? = member(.uprightRule) { self.uprightRule = uprightRule }
        focalLengthPixels = number(.focalLengthPixels)
        if case .string(let reason)? = member(.mirrored) {
            guard let mirrored = MirrorReason(rawValue: reason) else { return nil }
            self.mirrored = mirrored
        }
        if let video = member(.savedVideo) {
            guard case .string(let path)? = video[VideoKey.path.rawValue], case .number(let frames)? = video[VideoKey.frames.rawValue],
                  case .number(let dropped)? = video[VideoKey.droppedFrames.rawValue] else { return nil }
            savedVideo = SavedVideo(path: path, frames: Int(frames), droppedFrames: Int(dropped))
        }
        if case .object(let controls)? = member(.cameraControls) {
            cameraControls = []
            for (name, value) in controls {
                guard case .number(let number) = value, number == number.rounded() else { return nil }
                cameraControls?.append(NamedValue(name: name, value: Int(number)))
            }
        }
        grantedFramesPerSecond = number(.grantedFramesPerSecond)
        achievedFramesPerSecond = number(.achievedFramesPerSecond)
        frames = number(.frames).map { Int($0) }
        framesWithFace = number(.framesWithFace).map { Int($0) }
        droppedFrames = number(.droppedFrames).map { Int($0) }
        detectorRuns = number(.detectorRuns).map { Int($0) }
        lagMedianMilliseconds = number(.lagMedianMilliseconds)
        lagP95Milliseconds = number(.lagP95Milliseconds)
        cpuSeconds = number(.cpuSeconds)
        cpuPercentOfOneCore = number(.cpuPercentOfOneCore)
        if case .string(let advice)? = member(.seatingAdvice) { seatingAdvice = advice }
    }
}

extension CalibrationReference {
    /// The `calibration` object.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(id))]
        if let name { members.append(("name", .string(name))) }
        members.append(("createdAt", .number(createdAtSeconds)))
        members.append(("points", .number(Double(points))))
        if let accuracyPoints { members.append(("accuracyPoints", .number(accuracyPoints))) }
        if let accuracyDegrees { members.append(("accuracyDegrees", .number(accuracyDegrees))) }
        if let viewing {
            members.append(("viewingGeometry", .object([
                ("screenWidthMillimetres", .number(viewing.screenWidthMillimetres)),
                ("screenHeightMillimetres", .number(viewing.screenHeightMillimetres)),
                ("distanceMillimetres", .number(viewing.distanceMillimetres)),
            ])))
        }
        if let recalibratedAtSeconds { members.append(("recalibratedAt", .number(recalibratedAtSeconds))) }
        return .object(members)
    }

    init?(json: JSONValue) {
        func number(_ value: JSONValue?) -> Double? { if case .number(let n)? = value { n } else { nil } }
        guard case .string(let id)? = json["id"], let created = number(json["createdAt"]),
              let points = number(json["points"]) else { return nil }
        var name: String?
        if case .string(let text)? = json["name"] { name = text }
        var viewing: ViewingDistances?
        if let geometry = json["viewingGeometry"], let width = number(geometry["screenWidthMillimetres"]),
           let height = number(geometry["screenHeightMillimetres"]), let distance = number(geometry["distanceMillimetres"]),
           width > 0, height > 0, distance > 0 {
            viewing = ViewingDistances(screenWidthMillimetres: width, screenHeightMillimetres: height,
                                       distanceMillimetres: distance)
        }
        self.init(id: id, name: name, createdAtSeconds: created, points: Int(points),
                  accuracyPoints: number(json["accuracyPoints"]), accuracyDegrees: number(json["accuracyDegrees"]),
                  viewing: viewing, recalibratedAtSeconds: number(json["recalibratedAt"]))
    }
}

extension GazeSmoothing {
    /// The `smoothing` object.
    public var jsonValue: JSONValue {
        switch self {
        case .none:
            return .object([("filter", .string("none"))])
        case let .oneEuro(minCutoff, beta, derivativeCutoff):
            return .object([("filter", .string("oneEuro")), ("minCutoffHertz", .number(minCutoff)), ("beta", .number(beta)),
                            ("derivativeCutoffHertz", .number(derivativeCutoff))])
        }
    }

    /// Reads what `jsonValue` wrote; nil for anything else.
    public init?(json: JSONValue?) {
        guard let json, case .string(let filter)? = json["filter"] else { return nil }
        switch filter {
        case "none":
            self = .none
        case "oneEuro":
            guard case .number(let minCutoff)? = json["minCutoffHertz"], case .number(let beta)? = json["beta"],
                  case .number(let derivativeCutoff)? = json["derivativeCutoffHertz"],
                  minCutoff > 0, beta >= 0, derivativeCutoff > 0 else { return nil }
            self = .oneEuro(minCutoffHertz: minCutoff, beta: beta, derivativeCutoffHertz: derivativeCutoff)
        default:
            return nil
        }
    }
}

extension ReanalysisFacts {
    /// The `reanalysis` object.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("at", .number(atSeconds)), ("version", .string(version)),
                                              ("video", .string(videoPath))]
        if let framesWithFace { members.append(("framesWithFace", .number(Double(framesWithFace)))) }
        if let detectorRuns { members.append(("detectorRuns", .number(Double(detectorRuns)))) }
        return .object(members)
    }

    init?(json: JSONValue) {
        guard case .number(let at)? = json["at"], case .string(let version)? = json["version"],
              case .string(let video)? = json["video"] else { return nil }
        self.init(atSeconds: at, version: version, videoPath: video)
        if case .number(let frames)? = json["framesWithFace"] { framesWithFace = Int(frames) }
        if case .number(let runs)? = json["detectorRuns"] { detectorRuns = Int(runs) }
    }
}

extension AttentionFigures {
    /// The figures' members: frames, faceShare, onScreenShare (with gaze), then the eye figures.
    var jsonMembers: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("frames", .number(Double(frames))), ("faceShare", .number(faceShare))]
        if let onScreenShare { members.append(("onScreenShare", .number(onScreenShare))) }
        if let eyes {
            members += [("blinks", .number(Double(eyes.blinks))), ("longClosures", .number(Double(eyes.longClosures))),
                        ("blinksPerMinute", .number(eyes.blinksPerMinute)), ("perclos", .number(eyes.perclos))]
        }
        return members
    }
}

extension AttentionReport {
    /// `"gazerec"."attention"`: the session's figures, then `intervals` (one per marker) when there are markers.
    public var jsonValue: JSONValue {
        var members = session.jsonMembers
        if !intervals.isEmpty {
            members.append(("intervals", .array(intervals.map { interval in
                .object([("label", .string(interval.label)), ("start", .number(interval.start)),
                         ("end", .number(interval.end))] + interval.figures.jsonMembers)
            })))
        }
        return .object(members)
    }
}

/// Fixations and per-sample movement labels of a scan path, computed at export time
/// (`"gazerec"."fixations"` and `"gazerec"."movement"`).
public struct ExportedMovement {
    /// One JSON object per fixation, in order.
    public var fixations: [JSONValue]
    /// One label per scan-path sample (fixation, saccade, unknown).
    public var movement: [String]

    public init(fixations: [JSONValue], movement: [String]) {
        self.fixations = fixations
        self.movement = movement
    }
}

/// Everything export writes into a stored session's `"gazerec"` object: the stored members, the
/// members derived from the tables at export time, and the per-frame series, blinks and markers.
struct StoredSessionExtension {
    /// The stored extension (nil: the session has none).
    var stored: SessionExtension?
    /// Attention figures; present when the session has frames.
    var attention: AttentionReport?
    var movement: ExportedMovement?
    /// Whether the session has frames (`writeFrames` then streams them).
    var hasFrames: Bool
    var blinks: [BlinkTable.Record]
    var markers: [Marker]
    /// Whether the session has expression samples (`write` then streams them after the frames).
    var hasExpressions = false
    /// What the presenter showed, in index order (written after the markers).
    var presentations: [Presentation] = []

    /// Whether there is anything to write.
    var isEmpty: Bool {
        stored == nil && !hasFrames && !hasExpressions && blinks.isEmpty && markers.isEmpty && attention == nil
            && movement == nil && presentations.isEmpty
    }

    /// The members computed at export time, in the order they are written.
    var derivedMembers: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if let attention { members.append((SessionExtension.Name.attention, attention.jsonValue)) }
        if let movement {
            members.append((SessionExtension.Name.fixations, .array(movement.fixations)))
            members.append((SessionExtension.Name.movement, .array(movement.movement.map { .string($0) })))
        }
        return members
    }
}

/// Writes and reads the `"gazerec"` object in full, streaming the per-frame series: the one place
/// that spells its members' keys (with `SessionExtension.Name`).
enum SessionExtensionCodec {
    /// The session document's key of the object (the same in both key styles).
    static let objectKey: StaticString = "gazerec"

    /// Writes the object: the stored members (those derived anew replace stored ones of the same
    /// name, as an import of an earlier export has), the derived members, then `frames` (rows from
    /// `forEachFrame`), `expressions` (rows from `forEachExpression`), `blinks`, `markers` and `presentations`.
    static func write(_ content: StoredSessionExtension, to json: JSONWriter,
                      forEachFrame: ((StoredFrameRow) throws -> Void) throws -> Void,
                      forEachExpression: ((StoredExpressionRow) throws -> Void) throws -> Void = { _ in }) throws {
        try json.beginObject()
        let derived = content.derivedMembers
        for (name, value) in content.stored?.jsonMembers ?? [] where !derived.contains(where: { $0.0 == name }) {
            try json.key(name)
            try json.value(value)
        }
        for (name, value) in derived {
            try json.key(name)
            try json.value(value)
        }
        if content.hasFrames {
            try json.key(SessionExtension.Name.frames)
            try json.beginArray()
            try forEachFrame { try writeFrame($0, to: json) }
            try json.endArray()
        }
        if content.hasExpressions { try writeExpressions(to: json, forEachExpression) }
        if !content.blinks.isEmpty { try writeBlinks(content.blinks, to: json) }
        if !content.markers.isEmpty { try writeMarkers(content.markers, to: json) }
        if !content.presentations.isEmpty {
            try json.key(SessionExtension.Name.presentations)
            try json.value(presentationsValue(content.presentations))
        }
        try json.endObject()
    }

    /// One element of `frames`: timestamp, trackingState, confidence, the values present, appearance (base64).
    private static func writeFrame(_ row: StoredFrameRow, to json: JSONWriter) throws {
        try json.element()
        try json.beginObject()
        try json.key("timestamp"); try json.number(row.timestamp)
        try json.key("trackingState"); try json.string(utf8: row.trackingStateUTF8)
        try json.key("confidence"); try json.number(row.confidence)
        for (index, name) in FrameTable.optionalColumns.enumerated() {
            guard let value = row.optional(index) else { continue }
            try json.key(name); try json.number(value)
        }
        if let appearance = row.appearanceBytes {
            try json.key("appearance")
            try json.base64String(appearance)
        }
        try json.endObject()
    }

    /// `expressions`: one object per sample, its timestamp then the probabilities by name.
    private static func writeExpressions(to json: JSONWriter,
                                         _ forEach: ((StoredExpressionRow) throws -> Void) throws -> Void) throws {
        try json.key(SessionExtension.Name.expressions)
        try json.beginArray()
        try forEach { row in
            try json.element()
            try json.beginObject()
            try json.key("timestamp"); try json.number(row.timestamp)
            for (index, name) in ExpressionTable.valueColumns.enumerated() {
                try json.key(name); try json.number(row.probability(index))
            }
            try json.endObject()
        }
        try json.endArray()
    }

    /// An array member of objects, each written by `body` between its braces.
    private static func writeObjects<Element>(_ name: String, _ elements: [Element], to json: JSONWriter,
                                              _ body: (Element) throws -> Void) throws {
        try json.key(name)
        try json.beginArray()
        for element in elements {
            try json.element()
            try json.beginObject()
            try body(element)
            try json.endObject()
        }
        try json.endArray()
    }

    private static func writeBlinks(_ blinks: [BlinkTable.Record], to json: JSONWriter) throws {
        try writeObjects(SessionExtension.Name.blinks, blinks, to: json) { blink in
            try json.key("start"); try json.number(blink.startSeconds)
            try json.key("end"); try json.number(blink.endSeconds)
            try json.key("eyes"); try json.string(blink.eyes)
            try json.key("kind"); try json.string(blink.kind)
            try json.key("minimumOpenness"); try json.number(blink.minimumOpenness)
        }
    }

    private static func writeMarkers(_ markers: [Marker], to json: JSONWriter) throws {
        try writeObjects(SessionExtension.Name.markers, markers, to: json) { marker in
            try json.key("timestamp"); try json.number(marker.timestampSeconds)
            try json.key("label"); try json.string(marker.label)
            if let data = marker.dataJSON, let value = try? JSONValue.parse(Array(data.utf8)) {
                try json.key("data"); try json.value(value)
            }
        }
    }
}

/// Where `SessionExtensionCodec.read` hands the elements of the streamed members, in order.
struct SessionExtensionElements {
    var frame: (FrameMeasurement) throws -> Void
    var blink: (BlinkEvent) throws -> Void
    var marker: (Marker) throws -> Void
    var expression: (ExpressionSample) throws -> Void = { _ in }
    /// The presentations, all at once (in index order).
    var presentations: ([Presentation]) throws -> Void = { _ in }
}

extension SessionExtensionCodec {
    /// Reads a `"gazerec"` object: `frames`, `expressions`, `blinks` and `markers` element by element into
    /// `elements` (flat memory), the other members into the returned extension.
    static func read(_ reader: JSONReader, into elements: SessionExtensionElements) throws -> SessionExtension {
        guard try reader.peek() == 0x7B else { throw reader.error("expected an object, found \(try reader.describeNext())") }
        var members: [(String, JSONValue)] = []
        var streamed = Set<String>()
        try reader.forEachNamedMember(of: "'{'", key: "a key in double quotes") { key in
            switch key {
            case SessionExtension.Name.frames where streamed.insert(key).inserted:
                try readArray(reader, of: "frames", element: "a frame object") { try elements.frame(try readFrame(reader)) }
            case SessionExtension.Name.expressions where streamed.insert(key).inserted:
                try readArray(reader, of: "expression samples", element: "an expression object") {
                    try elements.expression(try readExpression(reader))
                }
            case SessionExtension.Name.blinks where streamed.insert(key).inserted:
                try readArray(reader, of: "blink events", element: "a blink object") { try elements.blink(try readBlink(reader)) }
            case SessionExtension.Name.markers where streamed.insert(key).inserted:
                try readArray(reader, of: "markers", element: "a marker object") { try elements.marker(try readMarker(reader)) }
            case SessionExtension.Name.presentations where streamed.insert(key).inserted:
                try elements.presentations(try readPresentations(reader))
            default:
                guard !members.contains(where: { $0.0 == key }) else { throw reader.error("duplicate key") }
                members.append((key, try reader.readValue()))
            }
        }
        return SessionExtension(json: .object(members))!
    }

    /// Reads an array of objects, calling `body` after each element's `{`, with its index on the path.
    private static func readArray(_ reader: JSONReader, of what: String, element: String, _ body: () throws -> Void) throws {
        try reader.forEachElement(of: "an array of \(what)") { _ in
            try reader.expect(0x7B, element)
            try body()
        }
    }

    /// The keys of a frame object: timestamp, trackingState, confidence, the optional values, appearance.
    private static let frameKeys = KeyTable(["timestamp", "trackingState", "confidence"] + FrameTable.optionalColumns
                                            + ["appearance"])

    /// One frame object after its `{`, checked to make a frame.
    private static func readFrame(_ reader: JSONReader) throws -> FrameMeasurement {
        let appearanceKey = 3 + FrameTable.optionalColumns.count
        var timestamp = Double.nan, state = "", confidence = Double.nan
        var optional = [Double?](repeating: nil, count: FrameTable.optionalColumns.count)
        var appearance: EyeAppearance?
        try reader.forEachMember(keys: frameKeys) { index in
            switch index {
            case 0?: timestamp = try reader.readNumber()
            case 1?: state = try reader.readString()
            case 2?: confidence = try reader.readNumber()
            case appearanceKey?: appearance = try readAppearance(reader)
            case let column?: optional[column - 3] = try reader.consumeNull() ? nil : try reader.readNumber()
            case nil: try reader.skipValue()
            }
        }
        guard !timestamp.isNaN else { throw reader.error("missing required key 'timestamp'") }
        guard !state.isEmpty else { throw reader.error("missing required key 'trackingState'") }
        guard !confidence.isNaN else { throw reader.error("missing required key 'confidence'") }
        do {
            return try FrameTable.frame(timestamp: timestamp, state: state, confidence: confidence, optional: optional,
                                        appearance: appearance)
        } catch let error as FrameColumnError {
            throw reader.error(error.reason)
        }
    }

    /// A frame's `appearance`: base64 of `EyeAppearance.encoded`, or null.
    private static func readAppearance(_ reader: JSONReader) throws -> EyeAppearance? {
        guard !(try reader.consumeNull()) else { return nil }
        let text = try reader.readString()
        guard let data = Data(base64Encoded: text) else { throw reader.error("not base64 text") }
        do {
            return try FrameTable.appearance(data)
        } catch let error as FrameColumnError {
            throw reader.error(error.reason)
        }
    }

    private static let expressionKeys = KeyTable(["timestamp"] + ExpressionTable.valueColumns)

    /// One expression object after its `{`: a timestamp and every probability, each 0…1.
    private static func readExpression(_ reader: JSONReader) throws -> ExpressionSample {
        var timestamp: Double?
        var values = [Double?](repeating: nil, count: ExpressionTable.valueColumns.count)
        try reader.forEachMember(keys: expressionKeys) { index in
            switch index {
            case 0?: timestamp = try reader.readNumber()
            case let column?:
                let value = try reader.readNumber()
                guard value >= 0 && value <= 1 else { throw reader.error("a probability must be 0…1, found \(value)") }
                values[column - 1] = value
            case nil: try reader.skipValue()
            }
        }
        guard let timestamp, values.allSatisfy({ $0 != nil }) else {
            throw reader.error("an expression sample needs timestamp and " + ExpressionTable.valueColumns.joined(separator: ", "))
        }
        return ExpressionSample(timestampSeconds: timestamp, probabilities: ExpressionProbabilities(values: values.map { $0! }))
    }

    private static let blinkKeys = KeyTable(["start", "end", "eyes", "kind", "minimumOpenness"])

    /// One blink object after its `{`.
    private static func readBlink(_ reader: JSONReader) throws -> BlinkEvent {
        var start: Double?, end: Double?, eyes: String?, kind: String?, minimum: Double?
        try reader.forEachMember(keys: blinkKeys) { index in
            switch index {
            case 0?: start = try reader.readNumber()
            case 1?: end = try reader.readNumber()
            case 2?: eyes = try reader.readString()
            case 3?: kind = try reader.readString()
            case 4?: minimum = try reader.readNumber()
            default: try reader.skipValue()
            }
        }
        guard let start, let end, let eyes, let kind, let minimum else {
            throw reader.error("a blink needs start, end, eyes, kind and minimumOpenness")
        }
        guard let blinkEyes = BlinkEyes(rawValue: eyes) else {
            throw reader.error("unknown eyes '\(eyes)' (expected both, left or right)")
        }
        guard let blinkKind = BlinkEvent.Kind(rawValue: kind) else {
            throw reader.error("unknown kind '\(kind)' (expected blink or longClosure)")
        }
        return BlinkEvent(startSeconds: start, endSeconds: end, eyes: blinkEyes, kind: blinkKind, minimumOpenness: minimum)
    }

    private static let markerKeys = KeyTable(["timestamp", "label", "data"])

    /// One marker object after its `{`.
    private static func readMarker(_ reader: JSONReader) throws -> Marker {
        var timestamp: Double?, label: String?, data: String?
        try reader.forEachMember(keys: markerKeys) { index in
            switch index {
            case 0?: timestamp = try reader.readNumber()
            case 1?: label = try reader.readString()
            case 2?: data = try reader.readValue().compactText
            default: try reader.skipValue()
            }
        }
        guard let timestamp, let label else { throw reader.error("a marker needs timestamp and label") }
        return Marker(timestampSeconds: timestamp, label: label, dataJSON: data)
    }
}
