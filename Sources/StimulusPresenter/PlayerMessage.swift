import JSONStream

/// One line mpv's JSON IPC sent: a property's new value, an event, or the reply to a command.
enum PlayerMessage: Equatable {
    /// An observed property changed; `value` is nil when the property is unavailable (between files).
    case property(name: String, value: PropertyValue?)
    /// An event (`playback-restart`, `seek`, `file-loaded`, `end-file` with its `reason`, …).
    case event(name: String, reason: String?)
    /// The answer to the command sent with `requestID`: "success" or mpv's error text.
    case reply(requestID: Int, error: String)

    /// The values the presenter reads: numbers, flags, texts (`current-vo`) and `osd-dimensions`.
    enum PropertyValue: Equatable {
        case number(Double)
        case flag(Bool)
        case dimensions(OSDDimensions)
        case text(String)
        case other
    }

    /// Parses one line; nil for a line that is not a JSON object mpv sends.
    static func parse(_ line: [UInt8]) -> PlayerMessage? {
        guard case .object(let members)? = try? JSONValue.parse(line, name: "mpv") else { return nil }
        func member(_ key: String) -> JSONValue? { members.first { $0.0 == key }?.1 }
        if case .string(let event)? = member("event") {
            guard event == "property-change" else {
                if case .string(let reason)? = member("reason") { return .event(name: event, reason: reason) }
                return .event(name: event, reason: nil)
            }
            guard case .string(let name)? = member("name") else { return nil }
            return .property(name: name, value: member("data").map(value))
        }
        if case .number(let id)? = member("request_id"), case .string(let error)? = member("error") {
            return .reply(requestID: Int(id), error: error)
        }
        return nil
    }

    private static func value(_ data: JSONValue) -> PropertyValue {
        switch data {
        case .number(let number): return .number(number)
        case .bool(let flag): return .flag(flag)
        case .string(let text): return .text(text)
        case .object(let members): return OSDDimensions(members).map { .dimensions($0) } ?? .other
        default: return .other
        }
    }
}

/// mpv's `osd-dimensions`: the window's size in pixels and the margins (letterbox or pillarbox bars)
/// around the video inside it.
struct OSDDimensions: Equatable {
    var width: Double, height: Double
    var marginLeft: Double, marginRight: Double, marginTop: Double, marginBottom: Double

    init(width: Double, height: Double, marginLeft: Double, marginRight: Double, marginTop: Double, marginBottom: Double) {
        self.width = width
        self.height = height
        self.marginLeft = marginLeft
        self.marginRight = marginRight
        self.marginTop = marginTop
        self.marginBottom = marginBottom
    }

    init?(_ members: [(String, JSONValue)]) {
        func number(_ key: String) -> Double? {
            if case .number(let value)? = members.first(where: { $0.0 == key })?.1 { value } else { nil }
        }
        guard let w = number("w"), let h = number("h"), let ml = number("ml"), let mr = number("mr"),
              let mt = number("mt"), let mb = number("mb") else { return nil }
        self.init(width: w, height: h, marginLeft: ml, marginRight: mr, marginTop: mt, marginBottom: mb)
    }

    /// The video's rectangle in window pixels, nil when no video is shown (a zero-sized window).
    var videoRect: (x: Double, y: Double, width: Double, height: Double)? {
        let width = self.width - marginLeft - marginRight, height = self.height - marginTop - marginBottom
        guard width > 0, height > 0 else { return nil }
        return (marginLeft, marginTop, width, height)
    }
}
