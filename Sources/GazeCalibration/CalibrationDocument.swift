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
    ///
    /// The members are read by `CalibrationJSON(reading:)` through the coding keys they are
    /// written with, so reading and writing name each member once.
    public init(value root: JSONValue, source: String) throws {
        let r = DocumentReader(source: source)
        guard case .object = root else { throw r.error("", "expected a calibration object") }
        let json = try CalibrationJSON(reading: DocumentNode(value: root, path: "", reader: r))
        id = json.id
        name = json.name
        createdAtSeconds = json.createdAt
        gazerecVersion = json.gazerecVersion
        (screenWidth, screenHeight) = (json.screen.width, json.screen.height)
        screenWidthMillimetres = json.screen.widthMillimetres
        screenHeightMillimetres = json.screen.heightMillimetres
        distanceMillimetres = json.screen.distanceMillimetres
        (sourceKind, sourceName) = (json.source.kind, json.source.name)
        (sourceWidth, sourceHeight) = (json.source.resolution[0], json.source.resolution[1])
        focalLengthPixels = json.source.focalLengthPixels
        headPoseModel = json.source.headPoseModel
        (mode, settleSeconds, collectSeconds) = (json.procedure.mode, json.procedure.settleSeconds, json.procedure.collectSeconds)
        let model = json.model
        let difference = model.eyeDifference ?? [0, 0]
        mapping = GazeMapping(featureSet: model.mappingFeatureSet, featureMeans: model.featureMeans, featureScales: model.featureScales,
                              coefficientsX: model.coefficientsX, coefficientsY: model.coefficientsY,
                              eyeDifference: Point2(difference[0], difference[1]), ridgePenalty: model.ridgePenalty)
        trainingErrorPoints = model.trainingErrorPoints.value ?? .nan
        crossValidationErrorPoints = model.crossValidationErrorPoints.value ?? .nan
        blendWeights = Dictionary(model.blend?.weights ?? [], uniquingKeysWith: { _, last in last })
        targets = json.targets.map(Target.init)
        let validationPoints = targets.compactMap(\.validation)
        validation = validationPoints.isEmpty ? nil : ValidationReport(points: validationPoints)
        samples = json.samples.map(TargetSample.init)
    }
}

extension CalibrationRecord.Target {
    /// A target as its document member holds it (read and checked by `CalibrationJSON.Target(reading:)`).
    init(_ json: CalibrationJSON.Target) {
        let position = Point2(json.x, json.y)
        let kind = CalibrationTarget.Kind(rawValue: json.kind) ?? .calibration
        self.init(kind: kind, position: position, collected: json.collected)
        if kind == .calibration {
            used = json.used
            meanErrorPoints = json.meanErrorPoints?.value
            skipped = json.skipped
        } else {
            validation = ValidationPointResult(
                target: position, samples: json.samples ?? 0,
                meanGaze: Point2(json.meanGazeX?.value ?? position.x, json.meanGazeY?.value ?? position.y),
                accuracyPoints: json.accuracyPoints?.value ?? .nan, precisionPoints: json.precisionPoints?.value ?? .nan,
                accuracyDegrees: json.accuracyDegrees?.value, precisionDegrees: json.precisionDegrees?.value)
        }
    }
}

extension CalibrationRecord.TargetSample {
    /// A sample as its document member holds it (read and checked by `CalibrationJSON.Sample(reading:targetCount:)`).
    init(_ json: CalibrationJSON.Sample) {
        func pupil(_ u: Double?, _ v: Double?) -> Point2? { u.flatMap { x in v.map { Point2(x, $0) } } }
        let features = GazeFeatures(
            timestampSeconds: json.timestamp, pupilLeft: pupil(json.leftU.value, json.leftV.value),
            pupilRight: pupil(json.rightU.value, json.rightV.value), yawDegrees: json.yawDegrees, pitchDegrees: json.pitchDegrees,
            headX: json.headX, headY: json.headY, trackingNormal: json.trackingNormal, opennessLeft: json.opennessLeft,
            opennessRight: json.opennessRight, appearance: json.appearance.flatMap(CalibrationJSON.Sample.eyeAppearance))
        self.init(target: json.target, features: features)
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

    /// A positive number at most 10⁹ (screen points, millimetres, pixels): a larger one is no real
    /// screen or camera, and the commands that print it in whole units could not.
    func optionalPositive(_ object: JSONValue, _ path: String) throws -> Double? {
        guard let value = try optionalNumber(object, path) else { return nil }
        guard value > 0 else { throw error(path, "expected a positive number") }
        guard value <= 1e9 else { throw error(path, "\(value) is beyond 1000000000, more than any real screen or camera") }
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
