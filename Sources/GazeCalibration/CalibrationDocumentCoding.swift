import Foundation
import GazeCore
import GazeModel
import JSONStream

/// The calibration document's shape (docs/Calibration.md lists the members): each member named
/// once, in the order it is written, and read by the same coding keys (`init(reading:)`, below);
/// optionals that are nil are left out, `OrNull` numbers are written as null when missing or not finite.
struct CalibrationJSON: Encodable {
    var formatVersion: Int
    var id: String
    var name: String?
    var createdAt: Double
    var gazerecVersion: String
    var screen: Screen
    var source: Source
    var procedure: Procedure
    var model: Model
    var targets: [Target]
    var validation: Validation?
    var samples: [Sample]

    struct Screen: Encodable {
        var width: Double
        var height: Double
        var widthMillimetres: Double?
        var heightMillimetres: Double?
        var distanceMillimetres: Double?
    }

    struct Source: Encodable {
        var kind: String
        var name: String
        var resolution: [Int]
        var focalLengthPixels: Double?
        var headPoseModel: String
    }

    struct Procedure: Encodable {
        var mode: String
        var settleSeconds: Double
        var collectSeconds: Double
    }

    /// `kind` with `features` and `terms` (the polynomial), or with `featureSet` and
    /// `featureCount` (a linear set); `eyeDifference` for the polynomial only.
    struct Model: Encodable {
        var kind: String
        var features: [String]?
        var terms: [String]?
        var featureSet: String?
        var featureCount: Int?
        var featureMeans: [Double]
        var featureScales: [Double]
        var coefficientsX: [Double]
        var coefficientsY: [Double]
        var eyeDifference: [Double]?
        var blend: Blend?
        var ridgePenalty: Double
        var trainingErrorPoints: OrNull
        var crossValidationErrorPoints: OrNull
    }

    /// The blended sets and their weights, in `GazeFeatureSet` order.
    struct Blend: Encodable {
        var weights: [(set: GazeFeatureSet, weight: Double)]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: JSONKey.self)
            for (set, weight) in weights { try container.encode(weight, forKey: JSONKey(set.rawValue)) }
        }
    }

    /// A target: the calibration members (`used`, `meanErrorPoints`, `skipped`) or the validation ones.
    struct Target: Encodable {
        var kind: String
        var x: Double
        var y: Double
        var collected: Int
        var used: Int?
        var meanErrorPoints: OrNull?
        var skipped: String?
        var samples: Int?
        var meanGazeX: OrNull?
        var meanGazeY: OrNull?
        var accuracyPoints: OrNull?
        var precisionPoints: OrNull?
        var accuracyDegrees: OrNull?
        var precisionDegrees: OrNull?
    }

    /// The validation summary; degrees only with a viewing geometry.
    struct Validation: Encodable {
        var accuracyPoints: OrNull
        var precisionPoints: OrNull
        var accuracyDegrees: OrNull?
        var precisionDegrees: OrNull?
    }

    struct Sample: Encodable {
        var target: Int
        var timestamp: Double
        var leftU: OrNull
        var leftV: OrNull
        var rightU: OrNull
        var rightV: OrNull
        var yawDegrees: Double
        var pitchDegrees: Double
        var headX: Double
        var headY: Double
        var trackingNormal: Bool
        var opennessLeft: Double?
        var opennessRight: Double?
        /// Base64 of the encoded `EyeAppearance`.
        var appearance: String?
    }

    /// A finite number, or null (JSON has no NaN or infinity).
    struct OrNull: Encodable {
        var value: Double?

        init(_ value: Double?) { self.value = value }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if let value, value.isFinite { try container.encode(value) } else { try container.encodeNil() }
        }
    }
}

extension CalibrationJSON {
    init(_ record: CalibrationRecord) {
        let geometry = record.geometry
        formatVersion = CalibrationRecord.formatVersion
        id = record.id
        name = record.name
        createdAt = record.createdAtSeconds
        gazerecVersion = record.gazerecVersion
        screen = Screen(width: record.screenWidth, height: record.screenHeight,
                        widthMillimetres: record.screenWidthMillimetres, heightMillimetres: record.screenHeightMillimetres,
                        distanceMillimetres: record.distanceMillimetres)
        source = Source(kind: record.sourceKind, name: record.sourceName, resolution: [record.sourceWidth, record.sourceHeight],
                        focalLengthPixels: record.focalLengthPixels, headPoseModel: record.headPoseModel)
        procedure = Procedure(mode: record.mode, settleSeconds: record.settleSeconds, collectSeconds: record.collectSeconds)
        model = Model(record)
        targets = record.targets.map { Target($0, geometry: geometry != nil) }
        validation = record.validation.map { summary in
            Validation(accuracyPoints: OrNull(summary.accuracyPoints), precisionPoints: OrNull(summary.precisionPoints),
                       accuracyDegrees: geometry == nil ? nil : OrNull(summary.accuracyDegrees),
                       precisionDegrees: geometry == nil ? nil : OrNull(summary.precisionDegrees))
        }
        samples = record.samples.map(Sample.init)
    }
}

extension CalibrationJSON.Model {
    init(_ record: CalibrationRecord) {
        let mapping = record.mapping
        let polynomial = mapping.featureSet.isPolynomial
        kind = polynomial ? CalibrationRecord.modelKind : CalibrationRecord.appearanceModelKind
        features = polynomial ? GazeMapping.featureNames : nil
        terms = polynomial ? GazeMapping.termNames : nil
        featureSet = polynomial ? nil : mapping.featureSet.rawValue
        featureCount = polynomial ? nil : mapping.featureSet.featureCount
        featureMeans = mapping.featureMeans
        featureScales = mapping.featureScales
        coefficientsX = mapping.coefficientsX
        coefficientsY = mapping.coefficientsY
        eyeDifference = polynomial ? [mapping.eyeDifference.x, mapping.eyeDifference.y] : nil
        let weights = GazeFeatureSet.allCases.compactMap { set in record.blendWeights[set].map { (set: set, weight: $0) } }
        blend = weights.isEmpty ? nil : CalibrationJSON.Blend(weights: weights)
        ridgePenalty = mapping.ridgePenalty
        trainingErrorPoints = CalibrationJSON.OrNull(record.trainingErrorPoints)
        crossValidationErrorPoints = CalibrationJSON.OrNull(record.crossValidationErrorPoints)
    }
}

extension CalibrationJSON.Target {
    /// `geometry`: the calibration has a viewing geometry, so validation targets carry degrees (null when unknown).
    init(_ target: CalibrationRecord.Target, geometry: Bool) {
        typealias OrNull = CalibrationJSON.OrNull
        kind = target.kind.rawValue
        (x, y) = (target.position.x, target.position.y)
        collected = target.collected
        used = target.used
        meanErrorPoints = target.meanErrorPoints.map(OrNull.init)
        skipped = target.skipped
        guard let result = target.validation else { return }
        samples = result.samples
        meanGazeX = OrNull(result.samples > 0 ? result.meanGaze.x : nil)
        meanGazeY = OrNull(result.samples > 0 ? result.meanGaze.y : nil)
        accuracyPoints = OrNull(result.accuracyPoints)
        precisionPoints = OrNull(result.precisionPoints)
        if result.accuracyDegrees != nil || geometry {
            accuracyDegrees = OrNull(result.accuracyDegrees)
            precisionDegrees = OrNull(result.precisionDegrees)
        }
    }
}

extension CalibrationJSON.Sample {
    init(_ sample: CalibrationRecord.TargetSample) {
        typealias OrNull = CalibrationJSON.OrNull
        let f = sample.features
        target = sample.target
        timestamp = f.timestampSeconds
        leftU = OrNull(f.pupilLeft?.x)
        leftV = OrNull(f.pupilLeft?.y)
        rightU = OrNull(f.pupilRight?.x)
        rightV = OrNull(f.pupilRight?.y)
        yawDegrees = f.yawDegrees
        pitchDegrees = f.pitchDegrees
        headX = f.headX
        headY = f.headY
        trackingNormal = f.trackingNormal
        opennessLeft = f.opennessLeft
        opennessRight = f.opennessRight
        appearance = f.appearance.map { Data($0.encoded).base64EncodedString() }
    }
}

// MARK: - Reading

/// A value at its place in a calibration document, read member by member through the coding keys
/// the document is written with (each member is named once, in `CalibrationJSON`); every error
/// carries the member's JSON path.
struct DocumentNode {
    let value: JSONValue
    let path: String
    let reader: DocumentReader

    func path(_ key: some CodingKey) -> String { path.isEmpty ? key.stringValue : "\(path).\(key.stringValue)" }
    func error(_ reason: String) -> CalibrationDocumentError { reader.error(path, reason) }
    func error(_ key: some CodingKey, _ reason: String) -> CalibrationDocumentError { reader.error(path(key), reason) }
    func member(_ key: some CodingKey) -> JSONValue? { value[key.stringValue] }

    func number(_ key: some CodingKey) throws -> Double { try reader.number(value, path(key)) }
    func optionalNumber(_ key: some CodingKey) throws -> Double? { try reader.optionalNumber(value, path(key)) }
    func positive(_ key: some CodingKey) throws -> Double { try reader.positive(value, path(key)) }
    func optionalPositive(_ key: some CodingKey) throws -> Double? { try reader.optionalPositive(value, path(key)) }
    func string(_ key: some CodingKey) throws -> String { try reader.string(value, path(key)) }
    func optionalString(_ key: some CodingKey) throws -> String? { try reader.optionalString(value, path(key)) }
    func bool(_ key: some CodingKey) throws -> Bool { try reader.bool(value, path(key)) }
    func numbers(_ key: some CodingKey, count: Int) throws -> [Double] { try reader.numbers(value, path(key), count: count) }
    func strings(_ key: some CodingKey) throws -> [String] { try reader.strings(value, path(key)) }

    func object(_ key: some CodingKey) throws -> DocumentNode {
        DocumentNode(value: try reader.object(value, path(key)), path: path(key), reader: reader)
    }

    func array(_ key: some CodingKey) throws -> [DocumentNode] {
        try reader.array(value, path(key)).enumerated().map { index, element in
            DocumentNode(value: element, path: "\(path(key))[\(index)]", reader: reader)
        }
    }
}

extension CalibrationJSON {
    /// Reads a calibration object as docs/Calibration.md describes it, member by member in document
    /// order, each checked where it is read (the first fault found is the one reported).
    init(reading root: DocumentNode) throws {
        let version = try root.number(CodingKeys.formatVersion)
        guard version == Double(CalibrationRecord.formatVersion) else {
            let shown = version == version.rounded() && abs(version) < 1e9 ? String(Int(version)) : "\(version)"
            throw root.error(CodingKeys.formatVersion,
                             "version \(shown) is not supported (this gazerec reads \(CalibrationRecord.formatVersion))")
        }
        formatVersion = CalibrationRecord.formatVersion
        // Checked and normalised as session ids are on import.
        let idText = try root.string(CodingKeys.id).uppercased()
        guard let uuid = UUID(uuidString: idText) else { throw root.error(CodingKeys.id, "'\(idText)' is not a UUID") }
        id = uuid.uuidString
        name = try root.optionalString(CodingKeys.name)
        createdAt = try root.number(CodingKeys.createdAt)
        gazerecVersion = try root.optionalString(CodingKeys.gazerecVersion) ?? "unknown"
        screen = try Screen(reading: root.object(CodingKeys.screen))
        source = try Source(reading: root.object(CodingKeys.source))
        procedure = try Procedure(reading: root.object(CodingKeys.procedure))
        model = try Model(reading: root.object(CodingKeys.model))
        let targets = try root.array(CodingKeys.targets).map(Target.init(reading:))
        guard targets.contains(where: { $0.kind == CalibrationTarget.Kind.calibration.rawValue }) else {
            throw root.error(CodingKeys.targets, "no calibration target")
        }
        self.targets = targets
        // The summary is the validation targets' (CalibrationRecord recomputes it), so it is not read.
        validation = nil
        samples = try root.array(CodingKeys.samples).map { try Sample(reading: $0, targetCount: targets.count) }
    }
}

extension CalibrationJSON.Screen {
    init(reading screen: DocumentNode) throws {
        width = try screen.positive(CodingKeys.width)
        height = try screen.positive(CodingKeys.height)
        widthMillimetres = try screen.optionalPositive(CodingKeys.widthMillimetres)
        heightMillimetres = try screen.optionalPositive(CodingKeys.heightMillimetres)
        distanceMillimetres = try screen.optionalPositive(CodingKeys.distanceMillimetres)
    }
}

extension CalibrationJSON.Source {
    init(reading source: DocumentNode) throws {
        kind = try source.string(CodingKeys.kind)
        name = try source.string(CodingKeys.name)
        resolution = try source.numbers(CodingKeys.resolution, count: 2).map { Int($0) }
        focalLengthPixels = try source.optionalPositive(CodingKeys.focalLengthPixels)
        // Calibrations made before the head-pose model was named measured with the six-point one.
        headPoseModel = try source.optionalString(CodingKeys.headPoseModel) ?? HeadPoseModelName.sixPoint
    }
}

extension CalibrationJSON.Procedure {
    init(reading procedure: DocumentNode) throws {
        mode = try procedure.string(CodingKeys.mode)
        settleSeconds = try procedure.number(CodingKeys.settleSeconds)
        collectSeconds = try procedure.number(CodingKeys.collectSeconds)
    }
}

extension CalibrationJSON.Model {
    /// The mapping's feature set: the polynomial's, or the linear set `featureSet` names.
    var mappingFeatureSet: GazeFeatureSet {
        kind == CalibrationRecord.modelKind ? .pupilPolynomial : featureSet.flatMap(GazeFeatureSet.init(rawValue:)) ?? .pupilPolynomial
    }

    init(reading model: DocumentNode) throws {
        kind = try model.string(CodingKeys.kind)
        let set: GazeFeatureSet
        switch kind {
        case CalibrationRecord.modelKind:
            guard try model.strings(CodingKeys.features) == GazeMapping.featureNames,
                  try model.strings(CodingKeys.terms) == GazeMapping.termNames else {
                throw model.error(CodingKeys.terms, "the features and terms must be exactly those of docs/Calibration.md")
            }
            (features, terms) = (GazeMapping.featureNames, GazeMapping.termNames)
            set = .pupilPolynomial
        case CalibrationRecord.appearanceModelKind:
            let name = try model.string(CodingKeys.featureSet)
            guard let named = GazeFeatureSet(rawValue: name), !named.isPolynomial else {
                let names = GazeFeatureSet.allCases.filter { !$0.isPolynomial }.map { "'\($0.rawValue)'" }
                throw model.error(CodingKeys.featureSet, "'\(name)' is not a feature set (expected "
                                  + names.dropLast().joined(separator: ", ") + " or " + names.last! + ")")
            }
            guard try model.number(CodingKeys.featureCount) == Double(named.featureCount) else {
                throw model.error(CodingKeys.featureCount, "the '\(name)' set has \(named.featureCount) features")
            }
            (featureSet, featureCount) = (name, named.featureCount)
            set = named
        case let other:
            throw model.error(CodingKeys.kind, "'\(other)' is not a mapping this gazerec applies (expected '\(CalibrationRecord.modelKind)' "
                              + "or '\(CalibrationRecord.appearanceModelKind)')")
        }
        featureScales = try model.numbers(CodingKeys.featureScales, count: set.featureCount)
        guard featureScales.allSatisfy({ $0 > 0 }) else { throw model.error(CodingKeys.featureScales, "scales must be positive") }
        eyeDifference = set.isPolynomial ? try model.numbers(CodingKeys.eyeDifference, count: 2) : nil
        featureMeans = try model.numbers(CodingKeys.featureMeans, count: set.featureCount)
        coefficientsX = try model.numbers(CodingKeys.coefficientsX, count: set.termCount)
        coefficientsY = try model.numbers(CodingKeys.coefficientsY, count: set.termCount)
        ridgePenalty = try model.number(CodingKeys.ridgePenalty)
        trainingErrorPoints = CalibrationJSON.OrNull(try model.optionalNumber(CodingKeys.trainingErrorPoints))
        crossValidationErrorPoints = CalibrationJSON.OrNull(try model.optionalNumber(CodingKeys.crossValidationErrorPoints))
        blend = try CalibrationJSON.Blend(reading: model, CodingKeys.blend)
    }
}

extension CalibrationJSON.Blend {
    /// The `blend` member of `model` (nil when absent or null): linear sets and their weights.
    init?(reading model: DocumentNode, _ key: some CodingKey) throws {
        guard let value = model.member(key), value != .null else { return nil }
        let blend = DocumentNode(value: value, path: model.path(key), reader: model.reader)
        guard case let .object(parts) = value else { throw blend.error("expected an object of feature sets and weights") }
        weights = []
        for (name, _) in parts {
            guard let set = GazeFeatureSet(rawValue: name), set.isAppearanceSubset else {
                throw blend.error(JSONKey(name), "'\(name)' is not a linear feature set (expected 'patches', 'shape' or 'appearance')")
            }
            let weight = try blend.number(JSONKey(name))
            guard (0...1).contains(weight) else { throw blend.error(JSONKey(name), "a weight lies between 0 and 1") }
            weights.append((set: set, weight: weight))
        }
    }
}

extension CalibrationJSON.Target {
    /// A target: the calibration members or the validation ones, as its kind says.
    init(reading target: DocumentNode) throws {
        typealias OrNull = CalibrationJSON.OrNull
        kind = try target.string(CodingKeys.kind)
        guard let parsed = CalibrationTarget.Kind(rawValue: kind) else {
            throw target.error(CodingKeys.kind, "expected 'calibration' or 'validation'")
        }
        x = try target.number(CodingKeys.x)
        y = try target.number(CodingKeys.y)
        collected = Int(try target.number(CodingKeys.collected))
        if parsed == .calibration {
            used = try target.optionalNumber(CodingKeys.used).map { Int($0) }
            meanErrorPoints = try target.optionalNumber(CodingKeys.meanErrorPoints).map(OrNull.init)
            skipped = try target.optionalString(CodingKeys.skipped)
        } else {
            samples = Int(try target.optionalNumber(CodingKeys.samples) ?? 0)
            meanGazeX = OrNull(try target.optionalNumber(CodingKeys.meanGazeX))
            meanGazeY = OrNull(try target.optionalNumber(CodingKeys.meanGazeY))
            accuracyPoints = OrNull(try target.optionalNumber(CodingKeys.accuracyPoints))
            precisionPoints = OrNull(try target.optionalNumber(CodingKeys.precisionPoints))
            accuracyDegrees = OrNull(try target.optionalNumber(CodingKeys.accuracyDegrees))
            precisionDegrees = OrNull(try target.optionalNumber(CodingKeys.precisionDegrees))
        }
    }
}

extension CalibrationJSON.Sample {
    /// A sample naming one of `targetCount` targets.
    init(reading sample: DocumentNode, targetCount: Int) throws {
        typealias OrNull = CalibrationJSON.OrNull
        target = Int(try sample.number(CodingKeys.target))
        guard (0..<targetCount).contains(target) else { throw sample.error(CodingKeys.target, "no target \(target)") }
        appearance = try sample.optionalString(CodingKeys.appearance)
        if let appearance, Self.eyeAppearance(appearance) == nil {
            throw sample.error(CodingKeys.appearance, "not an encoded eye appearance (base64 of \(EyeAppearance.encodedCount) bytes)")
        }
        timestamp = try sample.number(CodingKeys.timestamp)
        // A pupil is both its coordinates; the second is not read when the first is missing.
        leftU = OrNull(try sample.optionalNumber(CodingKeys.leftU))
        leftV = OrNull(leftU.value == nil ? nil : try sample.optionalNumber(CodingKeys.leftV))
        rightU = OrNull(try sample.optionalNumber(CodingKeys.rightU))
        rightV = OrNull(rightU.value == nil ? nil : try sample.optionalNumber(CodingKeys.rightV))
        yawDegrees = try sample.number(CodingKeys.yawDegrees)
        pitchDegrees = try sample.number(CodingKeys.pitchDegrees)
        headX = try sample.number(CodingKeys.headX)
        headY = try sample.number(CodingKeys.headY)
        trackingNormal = try sample.bool(CodingKeys.trackingNormal)
        opennessLeft = try sample.optionalNumber(CodingKeys.opennessLeft)
        opennessRight = try sample.optionalNumber(CodingKeys.opennessRight)
    }

    /// The eye appearance a sample's `appearance` text encodes (base64 of `EyeAppearance.encoded`), or nil.
    static func eyeAppearance(_ text: String) -> EyeAppearance? {
        Data(base64Encoded: text).flatMap { EyeAppearance(encoded: [UInt8]($0)) }
    }
}
