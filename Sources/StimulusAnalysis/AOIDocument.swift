import GazeModel
import JSONStream

/// Areas of interest read from their JSON document:
/// `[{"name": "logo", "rect": [x, y, w, h]}, {"name": "face", "ellipse": [cx, cy, rx, ry]},
///   {"name": "hand", "polygon": [[x, y], ...]}, {"name": "ball", "keyframes": [{"t": 0, "rect": [...]}, ...]}]`,
/// every number in stimulus pixels, `t` in stimulus seconds. An area (or keyframe) has exactly one
/// shape; a key gazerec does not know is refused (a misspelt key would otherwise be ignored).
public enum AOIDocument {
    /// The keys an area may have, and those a keyframe may have.
    static let areaKeys = ["name", "rect", "ellipse", "polygon", "keyframes"]
    static let keyframeKeys = ["t", "rect", "ellipse", "polygon"]
    static let shapeKeys = ["rect", "ellipse", "polygon"]

    /// Parses the document; `source` names it in errors. Names must be unique.
    public static func areas(_ bytes: [UInt8], source: String) throws -> [AreaOfInterest] {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, name: source)
        } catch let error as JSONError {
            throw StimulusError.badAOIs(source: source, reason: "\(error)")
        }
        guard case let .array(items) = value, !items.isEmpty else {
            throw StimulusError.badAOIs(source: source, reason: "expected a non-empty JSON array of areas")
        }
        var areas: [AreaOfInterest] = []
        for (index, item) in items.enumerated() {
            let area = try self.area(item, index: index, source: source)
            guard !areas.contains(where: { $0.name == area.name }) else {
                throw StimulusError.badAOIs(source: source, reason: "two areas are named \"\(area.name)\"")
            }
            areas.append(area)
        }
        return areas
    }

    private static func area(_ item: JSONValue, index: Int, source: String) throws -> AreaOfInterest {
        guard case let .object(members) = item,
              case let .string(name)? = members.first(where: { $0.0 == "name" })?.1, !name.isEmpty else {
            throw StimulusError.badAOIs(source: source, reason: "area \(index + 1) has no \"name\"")
        }
        do {
            try checkKeys(members, allowed: areaKeys)
            if let frames = members.first(where: { $0.0 == "keyframes" })?.1 {
                guard case let .array(list) = frames else { throw ShapeProblem.reason("\"keyframes\" must be an array") }
                guard !members.contains(where: { shapeKeys.contains($0.0) }) else {
                    throw ShapeProblem.reason("it has both \"keyframes\" and a shape: give one")
                }
                return try AreaOfInterest(name: name, keyframes: list.enumerated().map { index, value in
                    do { return try keyframe(value) } catch let ShapeProblem.reason(text) {
                        throw ShapeProblem.reason("keyframe \(index + 1): \(text)")
                    }
                })
            }
            return AreaOfInterest(name: name, shape: try shape(members))
        } catch let ShapeProblem.reason(text) {
            throw StimulusError.badAOIs(source: source, reason: "area \"\(name)\": \(text)")
        } catch let StimulusError.badAOIs(areaName, reason) {
            throw StimulusError.badAOIs(source: source, reason: "area \"\(areaName)\": \(reason)")
        }
    }

    private enum ShapeProblem: Error { case reason(String) }

    /// Refuses a key outside `allowed`, and more than one shape.
    private static func checkKeys(_ members: [(String, JSONValue)], allowed: [String]) throws {
        if let unknown = members.first(where: { !allowed.contains($0.0) }) {
            throw ShapeProblem.reason("unknown key \"\(unknown.0)\" (known: \(allowed.joined(separator: ", ")))")
        }
        let shapes = members.map(\.0).filter { shapeKeys.contains($0) }
        guard shapes.count <= 1 else {
            throw ShapeProblem.reason("it has \(shapes.count) shapes (\(shapes.map { "\"\($0)\"" }.joined(separator: ", "))): give one")
        }
    }

    private static func keyframe(_ value: JSONValue) throws -> AreaOfInterest.Keyframe {
        guard case let .object(members) = value, case let .number(time)? = members.first(where: { $0.0 == "t" })?.1,
              time.isFinite else {
            throw ShapeProblem.reason("a keyframe needs a time \"t\" in seconds")
        }
        try checkKeys(members, allowed: keyframeKeys)
        return AreaOfInterest.Keyframe(seconds: time, shape: try shape(members))
    }

    private static func numbers(_ value: JSONValue, count: Int, kind: String) throws -> [Double] {
        guard case let .array(items) = value, items.count == count else {
            throw ShapeProblem.reason("\"\(kind)\" needs \(count) numbers")
        }
        return try items.map {
            guard case let .number(n) = $0, n.isFinite else { throw ShapeProblem.reason("\"\(kind)\" needs \(count) numbers") }
            return n
        }
    }

    private static func shape(_ members: [(String, JSONValue)]) throws -> AOIShape {
        for (key, value) in members {
            switch key {
            case "rect":
                let n = try numbers(value, count: 4, kind: key)
                guard n[2] > 0, n[3] > 0 else { throw ShapeProblem.reason("a rect's width and height must be positive") }
                return .rect(x: n[0], y: n[1], width: n[2], height: n[3])
            case "ellipse":
                let n = try numbers(value, count: 4, kind: key)
                guard n[2] > 0, n[3] > 0 else { throw ShapeProblem.reason("an ellipse's radii must be positive") }
                return .ellipse(centreX: n[0], centreY: n[1], radiusX: n[2], radiusY: n[3])
            case "polygon":
                guard case let .array(points) = value, points.count >= 3 else {
                    throw ShapeProblem.reason("a polygon needs at least 3 points")
                }
                return .polygon(try points.map { let n = try numbers($0, count: 2, kind: "polygon point"); return Point2(n[0], n[1]) })
            default:
                continue
            }
        }
        throw ShapeProblem.reason("it needs one of \"rect\", \"ellipse\", \"polygon\" or \"keyframes\"")
    }
}
