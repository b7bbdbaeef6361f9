import GazeModel
import JSONStream

/// The `"gazerec"."presentations"` member: what the presenter showed, each presentation one object
/// with its events and playback samples (docs/ExportFormat.md). Written from and read into the
/// presentation tables, like the other streamed members; its keys are never converted to snake_case.
extension SessionExtensionCodec {
    /// The member's value for `presentations` (in index order).
    static func presentationsValue(_ presentations: [Presentation]) -> JSONValue {
        .array(presentations.map(presentationValue))
    }

    private static func presentationValue(_ p: Presentation) -> JSONValue {
        var members: [(String, JSONValue)] = [("index", .number(Double(p.index))), ("label", .string(p.label)), ("kind", .string(p.kind.rawValue))]
        let optional: [(String, JSONValue?)] = [
            ("fileName", p.fileName.map { .string($0) }), ("byteSize", p.byteSize.map { .number(Double($0)) }),
            ("sha256", p.sha256.map { .string($0) }), ("durationSeconds", p.durationSeconds.map { .number($0) }),
            ("frameRate", p.frameRate.map { .number($0) }), ("widthPixels", p.widthPixels.map { .number(Double($0)) }),
            ("heightPixels", p.heightPixels.map { .number(Double($0)) }),
            ("rect", p.rect.map { .object([("x", .number($0.x)), ("y", .number($0.y)), ("width", .number($0.width)), ("height", .number($0.height))]) }),
            ("onset", .number(p.onsetSeconds)), ("offset", p.offsetSeconds.map { .number($0) }),
        ]
        members += optional.compactMap { name, value in value.map { (name, $0) } }
        switch p.ending {
        case .finished?: members.append(("ending", .string("finished")))
        case .cutShort(let reason)?: members += [("ending", .string("cutShort")), ("endingReason", .string(reason))]
        case nil: break
        }
        members.append(("events", .array(p.events.map { event in
            .object([("kind", .string(event.kind.rawValue)), ("timestamp", .number(event.timestampSeconds)),
                     ("stimulusSeconds", .number(event.stimulusSeconds))]
                    + (event.fromStimulusSeconds.map { [("fromStimulusSeconds", JSONValue.number($0))] } ?? []))
        })))
        members.append(("playback", .array(p.playback.map { sample in
            .object([("timestamp", .number(sample.timestampSeconds)), ("stimulusSeconds", .number(sample.stimulusSeconds))])
        })))
        return .object(members)
    }

    /// Reads the member's value (the reader just past it): the presentations, checked to be what a
    /// presenter records (indices 0, 1, 2, … in order, known kinds and endings, events and playback
    /// samples in time order). A fault is thrown at the reader's position with its path inside the member.
    static func readPresentations(_ reader: JSONReader) throws -> [Presentation] {
        let value = try reader.readValue()
        var decoder = PresentationDecoder(reader: reader)
        guard let elements = value.arrayValue else { throw decoder.fault("expected an array of presentation objects") }
        var presentations: [Presentation] = []
        for (index, element) in elements.enumerated() {
            decoder.path = [.index(index)]
            let presentation = try decoder.presentation(element)
            guard presentation.index == index else {
                decoder.path.append(.key("index"))
                throw decoder.fault("presentations are numbered 0, 1, 2, … in order: expected \(index), found \(presentation.index)")
            }
            presentations.append(presentation)
        }
        return presentations
    }
}

/// Turns one presentation object into a `Presentation`, each fault naming where.
private struct PresentationDecoder {
    let reader: JSONReader
    var path: [JSONPathComponent] = []

    func fault(_ reason: String) -> JSONError {
        let saved = reader.path
        reader.path += path
        defer { reader.path = saved }
        return reader.error(reason)
    }

    mutating func at<T>(_ component: JSONPathComponent, _ body: (inout PresentationDecoder) throws -> T) rethrows -> T {
        path.append(component)
        defer { path.removeLast() }
        return try body(&self)
    }

    func number(_ object: JSONValue, _ key: String, required: Bool = false) throws -> Double? {
        switch object[key] {
        case .number(let value)?: return value
        case nil, .null?: if required { throw fault("missing required key '\(key)'") } else { return nil }
        default: throw fault("'\(key)' must be a number")
        }
    }

    func integer(_ object: JSONValue, _ key: String) throws -> Int? {
        guard let value = try number(object, key) else { return nil }
        guard value == value.rounded(), abs(value) < 9e15, value >= 0 else { throw fault("'\(key)' must be a whole number ≥ 0") }
        return Int(value)
    }

    func string(_ object: JSONValue, _ key: String, required: Bool = false) throws -> String? {
        switch object[key] {
        case .string(let value)?: return value
        case nil, .null?: if required { throw fault("missing required key '\(key)'") } else { return nil }
        default: throw fault("'\(key)' must be a string")
        }
    }

    mutating func presentation(_ object: JSONValue) throws -> Presentation {
        guard object.objectKeys != nil else { throw fault("expected a presentation object") }
        let kindText = try string(object, "kind", required: true)!
        guard let kind = Presentation.Kind(rawValue: kindText) else { throw fault("unknown kind '\(kindText)' (expected video, image or blank)") }
        var p = Presentation(index: try integer(object, "index") ?? -1, label: try string(object, "label", required: true)!, kind: kind,
                             fileName: try string(object, "fileName"), byteSize: try integer(object, "byteSize"),
                             sha256: try string(object, "sha256"), durationSeconds: try number(object, "durationSeconds"),
                             frameRate: try number(object, "frameRate"), widthPixels: try integer(object, "widthPixels"),
                             heightPixels: try integer(object, "heightPixels"),
                             onsetSeconds: try number(object, "onset", required: true)!, offsetSeconds: try number(object, "offset"))
        if let rect = object["rect"], rect != .null {
            p.rect = try at(.key("rect")) { d in
                PresentationRect(x: try d.number(rect, "x", required: true)!, y: try d.number(rect, "y", required: true)!,
                                 width: try d.number(rect, "width", required: true)!, height: try d.number(rect, "height", required: true)!)
            }
        }
        switch try string(object, "ending") {
        case "finished"?: p.ending = .finished
        case "cutShort"?: p.ending = .cutShort(reason: try string(object, "endingReason") ?? "")
        case nil: p.ending = nil
        case let other?: throw fault("unknown ending '\(other)' (expected finished or cutShort)")
        }
        if let offset = p.offsetSeconds, offset < p.onsetSeconds { throw fault("'offset' \(offset) is before 'onset' \(p.onsetSeconds)") }
        p.events = try at(.key("events")) { d in try d.list(object["events"]) { d, element in try d.event(element) } }
        p.playback = try at(.key("playback")) { d in
            try d.list(object["playback"]) { d, element in
                PlaybackSample(timestampSeconds: try d.number(element, "timestamp", required: true)!,
                               stimulusSeconds: try d.number(element, "stimulusSeconds", required: true)!)
            }
        }
        try at(.key("events")) { d in try d.inTimeOrder(p.events.map(\.timestampSeconds)) }
        try at(.key("playback")) { d in try d.inTimeOrder(p.playback.map(\.timestampSeconds)) }
        return p
    }

    mutating func event(_ element: JSONValue) throws -> PresentationEvent {
        let kindText = try string(element, "kind", required: true)!
        guard let kind = PresentationEvent.Kind(rawValue: kindText) else {
            throw fault("unknown kind '\(kindText)' (expected " + PresentationEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        return PresentationEvent(kind: kind, timestampSeconds: try number(element, "timestamp", required: true)!,
                                 stimulusSeconds: try number(element, "stimulusSeconds", required: true)!,
                                 fromStimulusSeconds: try number(element, "fromStimulusSeconds"))
    }

    /// The elements of an array of objects (absent: none), each decoded with its index on the path.
    mutating func list<T>(_ value: JSONValue?, _ body: (inout PresentationDecoder, JSONValue) throws -> T) throws -> [T] {
        guard let value, value != .null else { return [] }
        guard let elements = value.arrayValue else { throw fault("expected an array of objects") }
        var out: [T] = []
        out.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            out.append(try at(.index(index)) { d in
                guard element.objectKeys != nil else { throw d.fault("expected an object") }
                return try body(&d, element)
            })
        }
        return out
    }

    mutating func inTimeOrder(_ times: [Double]) throws {
        for index in times.indices.dropFirst() where times[index] < times[index - 1] {
            try at(.index(index)) { d in throw d.fault("its timestamp is earlier than the one before it; they are in time order") }
        }
    }
}
