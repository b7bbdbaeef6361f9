import Foundation
import GazeCore
import GazeModel
import JSONStream

/// Why a calibration document could not be read.
public struct CalibrationDocumentError: Error, CustomStringConvertible, Equatable {
    public var source: String
    /// JSON path of the offending value (`targets[3].x`).
    public var path: String
    public var reason: String

    public init(source: String, path: String, reason: String) {
        self.source = source
        self.path = path
        self.reason = reason
    }

    public var description: String {
        "cannot read \(source): \(path.isEmpty ? "" : path + ": ")\(reason)."
    }
}

extension CalibrationRecord {
    /// `model.kind` of the polynomial pupil mapping.
    static let modelKind = "ridgePolynomial2"
    /// `model.kind` of the linear mappings of eye patches (and face shape).
    static let appearanceModelKind = "ridgeAppearance1"

    // MARK: - Writing

    /// The calibration as JSON text (compact, or pretty with two-space indents).
    public func document(pretty: Bool = false) throws -> String {
        try JSONDocument.text(try jsonValue, pretty: pretty, lineBreak: false)
    }

    /// The calibration as a JSON value (docs/Calibration.md lists the members; `CalibrationJSON` is their shape).
    public var jsonValue: JSONValue {
        get throws { try JSONValueEncoder().encode(CalibrationJSON(self)) }
    }

    // MARK: - Reading

    /// Reads a document written by `document()` (or by hand, following docs/Calibration.md).
    public init(document bytes: [UInt8], source: String) throws {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes, name: source)
        } catch {
            throw CalibrationDocumentError(source: source, path: "", reason: "not valid JSON (\(error))")
        }
        try self.init(value: root, source: source)
    }

    /// Reads one calibration object (an element of an exported array, say).
    public init(value root: JSONValue, source: String) throws {
        let r = DocumentReader(source: source)
        guard case .object = root else { throw r.error("", "expected a calibration object") }
        let version = try r.number(root, "formatVersion")
        guard version == Double(Self.formatVersion) else {
            throw r.error("formatVersion", "version \(version == version.rounded() && abs(version) < 1e9 ? String(Int(version)) : "\(version)") is not supported (this gazerec reads \(Self.formatVersion))")
        }
        // Checked and normalised as session ids are on import.
        let idText = try r.string(root, "id").uppercased()
        guard let uuid = UUID(uuidString: idText) else { throw r.error("id", "'\(idText)' is not a UUID") }
        id = uuid.uuidString
        name = try r.optionalString(root, "name")
        createdAtSeconds = try r.number(root, "createdAt")
        gazerecVersion = try r.optionalString(root, "gazerecVersion") ?? "unknown"
        let screen = try r.object(root, "screen")
        screenWidth = try r.positive(screen, "screen.width")
        screenHeight = try r.positive(screen, "screen.height")
        screenWidthMillimetres = try r.optionalPositive(screen, "screen.widthMillimetres")
        screenHeightMillimetres = try r.optionalPositive(screen, "screen.heightMillimetres")
        distanceMillimetres = try r.optionalPositive(screen, "screen.distanceMillimetres")
        let source = try r.object(root, "source")
        sourceKind = try r.string(source, "source.kind")
        sourceName = try r.string(source, "source.name")
        let resolution = try r.numbers(source, "source.resolution", count: 2)
        (sourceWidth, sourceHeight) = (Int(resolution[0]), Int(resolution[1]))
        focalLengthPixels = try r.optionalPositive(source, "source.focalLengthPixels")
        // Calibrations made before the head-pose model was named measured with the six-point one.
        headPoseModel = try r.optionalString(source, "source.headPoseModel") ?? HeadPoseModelName.sixPoint
        let procedure = try r.object(root, "procedure")
        mode = try r.string(procedure, "procedure.mode")
        settleSeconds = try r.number(procedure, "procedure.settleSeconds")
        collectSeconds = try r.number(procedure, "procedure.collectSeconds")

        let model = try r.object(root, "model")
        mapping = try Self.readMapping(model, r)
        trainingErrorPoints = try r.optionalNumber(model, "model.trainingErrorPoints") ?? .nan
        crossValidationErrorPoints = try r.optionalNumber(model, "model.crossValidationErrorPoints") ?? .nan
        blendWeights = try Self.readBlend(model, r)
        let targets = try Self.readTargets(root, r)
        guard targets.contains(where: { $0.kind == .calibration }) else {
            throw r.error("targets", "no calibration target")
        }
        self.targets = targets
        let validationPoints = targets.compactMap(\.validation)
        validation = validationPoints.isEmpty ? nil : ValidationReport(points: validationPoints)

        samples = try Self.readSamples(root, r, targetCount: targets.count)
    }

    /// The `model` member's mapping.
    private static func readMapping(_ model: JSONValue, _ r: DocumentReader) throws -> GazeMapping {
        let set: GazeFeatureSet
        switch try r.string(model, "model.kind") {
        case Self.modelKind:
            guard try r.strings(model, "model.features") == GazeMapping.featureNames,
                  try r.strings(model, "model.terms") == GazeMapping.termNames else {
                throw r.error("model.terms", "the features and terms must be exactly those of docs/Calibration.md")
            }
            set = .pupilPolynomial
        case Self.appearanceModelKind:
            let name = try r.string(model, "model.featureSet")
            guard let named = GazeFeatureSet(rawValue: name), !named.isPolynomial else {
                let names = GazeFeatureSet.allCases.filter { !$0.isPolynomial }.map { "'\($0.rawValue)'" }
                throw r.error("model.featureSet", "'\(name)' is not a feature set (expected "
                              + names.dropLast().joined(separator: ", ") + " or " + names.last! + ")")
            }
            guard try r.number(model, "model.featureCount") == Double(named.featureCount) else {
                throw r.error("model.featureCount", "the '\(name)' set has \(named.featureCount) features")
            }
            set = named
        case let other:
            throw r.error("model.kind", "'\(other)' is not a mapping this gazerec applies (expected '\(Self.modelKind)' "
                          + "or '\(Self.appearanceModelKind)')")
        }
        let scales = try r.numbers(model, "model.featureScales", count: set.featureCount)
        guard scales.allSatisfy({ $0 > 0 }) else { throw r.error("model.featureScales", "scales must be positive") }
        let difference = set.isPolynomial ? try r.numbers(model, "model.eyeDifference", count: 2) : [0, 0]
        return GazeMapping(
            featureSet: set,
            featureMeans: try r.numbers(model, "model.featureMeans", count: set.featureCount), featureScales: scales,
            coefficientsX: try r.numbers(model, "model.coefficientsX", count: set.termCount),
            coefficientsY: try r.numbers(model, "model.coefficientsY", count: set.termCount),
            eyeDifference: Point2(difference[0], difference[1]), ridgePenalty: try r.number(model, "model.ridgePenalty"))
    }

    /// The `model.blend` member: linear sets and their weights (absent: one set's mapping).
    private static func readBlend(_ model: JSONValue, _ r: DocumentReader) throws -> [GazeFeatureSet: Double] {
        guard let blend = model["blend"], blend != .null else { return [:] }
        guard case let .object(parts) = blend else { throw r.error("model.blend", "expected an object of feature sets and weights") }
        var weights: [GazeFeatureSet: Double] = [:]
        for (name, _) in parts {
            guard let set = GazeFeatureSet(rawValue: name), set.isAppearanceSubset else {
                throw r.error("model.blend.\(name)", "'\(name)' is not a linear feature set (expected 'patches', 'shape' or 'appearance')")
            }
            let weight = try r.number(blend, "model.blend.\(name)")
            guard (0...1).contains(weight) else { throw r.error("model.blend.\(name)", "a weight lies between 0 and 1") }
            weights[set] = weight
        }
        return weights
    }

    /// The `targets` member.
    private static func readTargets(_ root: JSONValue, _ r: DocumentReader) throws -> [Target] {
        var targets: [Target] = []
        for (index, value) in try r.array(root, "targets").enumerated() {
            let path = "targets[\(index)]"
            guard let kind = CalibrationTarget.Kind(rawValue: try r.string(value, path + ".kind")) else {
                throw r.error(path + ".kind", "expected 'calibration' or 'validation'")
            }
            let position = Point2(try r.number(value, path + ".x"), try r.number(value, path + ".y"))
            var target = Target(kind: kind, position: position, collected: Int(try r.number(value, path + ".collected")))
            if kind == .calibration {
                target.used = try r.optionalNumber(value, path + ".used").map(Int.init)
                target.meanErrorPoints = try r.optionalNumber(value, path + ".meanErrorPoints")
                target.skipped = try r.optionalString(value, path + ".skipped")
            } else {
                let samples = Int(try r.optionalNumber(value, path + ".samples") ?? 0)
                let mean = Point2(try r.optionalNumber(value, path + ".meanGazeX") ?? position.x,
                                  try r.optionalNumber(value, path + ".meanGazeY") ?? position.y)
                target.validation = ValidationPointResult(
                    target: position, samples: samples, meanGaze: mean,
                    accuracyPoints: try r.optionalNumber(value, path + ".accuracyPoints") ?? .nan,
                    precisionPoints: try r.optionalNumber(value, path + ".precisionPoints") ?? .nan,
                    accuracyDegrees: try r.optionalNumber(value, path + ".accuracyDegrees"),
                    precisionDegrees: try r.optionalNumber(value, path + ".precisionDegrees"))
            }
            targets.append(target)
        }
        return targets
    }

    /// The `samples` member, each naming one of `targetCount` targets.
    private static func readSamples(_ root: JSONValue, _ r: DocumentReader, targetCount: Int) throws -> [TargetSample] {
        var samples: [TargetSample] = []
        for (index, value) in try r.array(root, "samples").enumerated() {
            let path = "samples[\(index)]"
            let target = Int(try r.number(value, path + ".target"))
            guard (0..<targetCount).contains(target) else { throw r.error(path + ".target", "no target \(target)") }
            func pupil(_ u: String, _ v: String) throws -> Point2? {
                guard let x = try r.optionalNumber(value, path + "." + u), let y = try r.optionalNumber(value, path + "." + v) else {
                    return nil
                }
                return Point2(x, y)
            }
            var appearance: EyeAppearance?
            if let text = try r.optionalString(value, path + ".appearance") {
                guard let data = Data(base64Encoded: text), let decoded = EyeAppearance(encoded: [UInt8](data)) else {
                    throw r.error(path + ".appearance", "not an encoded eye appearance (base64 of \(EyeAppearance.encodedCount) bytes)")
                }
                appearance = decoded
            }
            let features = GazeFeatures(
                timestampSeconds: try r.number(value, path + ".timestamp"), pupilLeft: try pupil("leftU", "leftV"),
                pupilRight: try pupil("rightU", "rightV"), yawDegrees: try r.number(value, path + ".yawDegrees"),
                pitchDegrees: try r.number(value, path + ".pitchDegrees"), headX: try r.number(value, path + ".headX"),
                headY: try r.number(value, path + ".headY"), trackingNormal: try r.bool(value, path + ".trackingNormal"),
                opennessLeft: try r.optionalNumber(value, path + ".opennessLeft"),
                opennessRight: try r.optionalNumber(value, path + ".opennessRight"), appearance: appearance)
            samples.append(TargetSample(target: target, features: features))
        }
        return samples
    }
}

/// Typed access to a JSON tree, with the JSON path in every error.
struct DocumentReader {
    let source: String

    func error(_ path: String, _ reason: String) -> CalibrationDocumentError {
        CalibrationDocumentError(source: source, path: path, reason: reason)
    }

    private func member(_ object: JSONValue, _ path: String) -> JSONValue? {
        let key = String(path.split(separator: ".").last ?? Substring(path))
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    /// `value`, or the error that the member at `path` is missing (`what`: number, string).
    private func required<T>(_ value: T?, _ path: String, _ what: String) throws -> T {
        guard let value else { throw error(path, "missing \(what)") }
        return value
    }

    func number(_ object: JSONValue, _ path: String) throws -> Double {
        try required(optionalNumber(object, path), path, "number")
    }

    func optionalNumber(_ object: JSONValue, _ path: String) throws -> Double? {
        guard let value = member(object, path) else { return nil }
        guard case .number(let number) = value, number.isFinite else { throw error(path, "expected a number") }
        return number
    }

    func positive(_ object: JSONValue, _ path: String) throws -> Double {
        try required(optionalPositive(object, path), path, "number")
    }

    func optionalPositive(_ object: JSONValue, _ path: String) throws -> Double? {
        guard let value = try optionalNumber(object, path) else { return nil }
        guard value > 0 else { throw error(path, "expected a positive number") }
        return value
    }

    func string(_ object: JSONValue, _ path: String) throws -> String {
        try required(optionalString(object, path), path, "string")
    }

    func optionalString(_ object: JSONValue, _ path: String) throws -> String? {
        guard let value = member(object, path) else { return nil }
        guard case .string(let text) = value else { throw error(path, "expected a string") }
        return text
    }

    func bool(_ object: JSONValue, _ path: String) throws -> Bool {
        guard case .bool(let value)? = member(object, path) else { throw error(path, "expected true or false") }
        return value
    }

    func object(_ object: JSONValue, _ path: String) throws -> JSONValue {
        guard let value = member(object, path), case .object = value else { throw error(path, "missing object") }
        return value
    }

    func array(_ object: JSONValue, _ path: String) throws -> [JSONValue] {
        guard let value = member(object, path), let elements = value.arrayValue else { throw error(path, "missing array") }
        return elements
    }

    func numbers(_ object: JSONValue, _ path: String, count: Int) throws -> [Double] {
        let elements = try array(object, path)
        guard elements.count == count else { throw error(path, "expected \(count) numbers, got \(elements.count)") }
        return try elements.enumerated().map { index, element in
            guard case .number(let value) = element, value.isFinite else { throw error("\(path)[\(index)]", "expected a number") }
            return value
        }
    }

    func strings(_ object: JSONValue, _ path: String) throws -> [String] {
        try array(object, path).enumerated().map { index, element in
            guard case .string(let value) = element else { throw error("\(path)[\(index)]", "expected a string") }
            return value
        }
    }
}
