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
        case .eyes(let summary):
            return .object([("blinks", .number(Double(summary.blinks))), ("longClosures", .number(Double(summary.longClosures))),
                            ("blinksPerMinute", .number(summary.blinksPerMinute)), ("perclos", .number(summary.perclos)),
                            ("framesWithFace", .number(Double(summary.framesWithFace)))])
        case .other(let text): return (try? JSONValue.parse(Array(text.utf8))) ?? .null
        }
    }
}

extension RecordingFacts {
    /// The `recorder` object, members in the order a recorder writes them.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [
            ("version", .string(version)),
            ("source", .string(sourceKind.rawValue)),
            (sourceKind == .camera ? "camera" : "input", .string(sourceName)),
            ("resolution", .array([.number(Double(width)), .number(Double(height))])),
            ("requestedFramesPerSecond", .number(requestedFramesPerSecond)),
            ("model", .string(modelPath)),
        ]
        if let headPoseModel { members.append(("headPoseModel", .string(headPoseModel))) }
        if let focalLengthPixels { members.append(("focalLengthPixels", .number(focalLengthPixels))) }
        if let mirrored { members.append(("mirrored", .string(mirrored.rawValue))) }
        if let cameraControls {
            members.append(("cameraControls", .object(cameraControls.map { ($0.name, .number(Double($0.value))) })))
        }
        if let savedVideo {
            members.append(("savedVideo", .object([("path", .string(savedVideo.path)),
                                                   ("frames", .number(Double(savedVideo.frames))),
                                                   ("droppedFrames", .number(Double(savedVideo.droppedFrames)))])))
        }
        func add(_ name: String, _ value: Double?) { if let value { members.append((name, .number(value))) } }
        add("grantedFramesPerSecond", grantedFramesPerSecond)
        add("achievedFramesPerSecond", achievedFramesPerSecond)
        add("frames", frames.map(Double.init))
        add("framesWithFace", framesWithFace.map(Double.init))
        add("droppedFrames", droppedFrames.map(Double.init))
        add("detectorRuns", detectorRuns.map(Double.init))
        add("lagMedianMilliseconds", lagMedianMilliseconds)
        add("lagP95Milliseconds", lagP95Milliseconds)
        add("cpuSeconds", cpuSeconds)
        add("cpuPercentOfOneCore", cpuPercentOfOneCore)
        return .object(members)
    }

    init?(json: JSONValue) {
        guard case .string(let version)? = json["version"], case .string(let kindText)? = json["source"],
              let kind = SourceKind(rawValue: kindText),
              case .string(let name)? = json[kind == .camera ? "camera" : "input"],
              let resolution = json["resolution"]?.arrayValue, resolution.count == 2,
              case .number(let width) = resolution[0], case .number(let height) = resolution[1],
              case .number(let requested)? = json["requestedFramesPerSecond"],
              case .string(let model)? = json["model"] else { return nil }
        self.init(version: version, sourceKind: kind, sourceName: name, width: Int(width), height: Int(height),
                  requestedFramesPerSecond: requested, modelPath: model)
        func number(_ key: String) -> Double? { if case .number(let value)? = json[key] { value } else { nil } }
        if case .string(let headPoseModel)? = json["headPoseModel"] { self.headPoseModel = headPoseModel }
        if case .number(let focal)? = json["focalLengthPixels"] { focalLengthPixels = focal }
        if case .string(let reason)? = json["mirrored"] {
            guard let mirrored = MirrorReason(rawValue: reason) else { return nil }
            self.mirrored = mirrored
        }
        if let video = json["savedVideo"] {
            guard case .string(let path)? = video["path"], case .number(let frames)? = video["frames"],
                  case .number(let dropped)? = video["droppedFrames"] else { return nil }
            savedVideo = SavedVideo(path: path, frames: Int(frames), droppedFrames: Int(dropped))
        }
        if case .object(let controls)? = json["cameraControls"] {
            cameraControls = []
            for (name, value) in controls {
                guard case .number(let number) = value, number == number.rounded() else { return nil }
                cameraControls?.append(NamedValue(name: name, value: Int(number)))
            }
        }
        grantedFramesPerSecond = number("grantedFramesPerSecond")
        achievedFramesPerSecond = number("achievedFramesPerSecond")
        frames = number("frames").map { Int($0) }
        framesWithFace = number("framesWithFace").map { Int($0) }
        droppedFrames = number("droppedFrames").map { Int($0) }
        detectorRuns = number("detectorRuns").map { Int($0) }
        lagMedianMilliseconds = number("lagMedianMilliseconds")
        lagP95Milliseconds = number("lagP95Milliseconds")
        cpuSeconds = number("cpuSeconds")
        cpuPercentOfOneCore = number("cpuPercentOfOneCore")
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
