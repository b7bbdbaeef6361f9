import Foundation
import GazeCore
import GazeModel
import JSONStream

/// The calibration document's shape (docs/Calibration.md lists the members): each member named
/// once, in the order it is written; optionals that are nil are left out, `OrNull` numbers are
/// written as null when missing or not finite.
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
