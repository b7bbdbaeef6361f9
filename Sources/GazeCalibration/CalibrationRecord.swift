import Foundation
import GazeCore
import GazeModel

/// A stored calibration: the fitted mapping with everything needed to judge, reuse and refit it.
///
/// Kept in the database as one JSON document (`document()`), the same text `calibrations export`
/// writes and `calibrations import` reads; docs/Calibration.md describes every field.
public struct CalibrationRecord: Sendable {
    public static let formatVersion = 1

    /// One collected frame with the target it belongs to.
    public struct TargetSample: Sendable, Equatable {
        /// Index into `targets`.
        public var target: Int
        public var features: GazeFeatures
    }

    /// A calibration or validation target with what happened at it.
    public struct Target: Sendable, Equatable {
        public var kind: CalibrationTarget.Kind
        public var position: Point2
        /// Calibration targets: frames collected, frames the fit kept, their mean error (points).
        public var collected: Int
        public var used: Int?
        public var meanErrorPoints: Double?
        /// Calibration targets the fit went on without: why (`CalibrationOutcome.skippedReasons`).
        public var skipped: String?
        /// Validation targets: the measurement.
        public var validation: ValidationPointResult?
    }

    public var id: String
    public var name: String?
    public var createdAtSeconds: Double
    public var screenWidth: Double
    public var screenHeight: Double
    public var screenWidthMillimetres: Double?
    public var screenHeightMillimetres: Double?
    public var distanceMillimetres: Double?
    /// "camera" or "file", the device or file, and the frame size.
    public var sourceKind: String
    public var sourceName: String
    public var sourceWidth: Int
    public var sourceHeight: Int
    /// The camera focal length given for head pose (`--focal-length`); nil when the frame width
    /// stood in for it. Recordings applying the calibration use the same.
    public var focalLengthPixels: Double?
    /// The face model its head poses were measured with (`HeadPoseModelName`).
    public var headPoseModel = HeadPoseModelName.current
    /// "interactive" or "scripted".
    public var mode: String
    public var settleSeconds: Double
    public var collectSeconds: Double
    public var mapping: GazeMapping
    public var trainingErrorPoints: Double
    public var crossValidationErrorPoints: Double
    /// The linear sets the mapping averages, with their weights; empty when it is one set's.
    public var blendWeights: [GazeFeatureSet: Double] = [:]
    public var targets: [Target]
    public var validation: ValidationReport?
    public var samples: [TargetSample]
    public var gazerecVersion: String

    /// The viewing geometry, when the screen's size in millimetres and the distance are known.
    public var geometry: ScreenGeometry? {
        guard let screenWidthMillimetres, let screenHeightMillimetres, let distanceMillimetres else { return nil }
        return ScreenGeometry(widthPoints: screenWidth, heightPoints: screenHeight, widthMillimetres: screenWidthMillimetres,
                              heightMillimetres: screenHeightMillimetres, distanceMillimetres: distanceMillimetres)
    }

    public var calibrationPointCount: Int { targets.filter { $0.kind == .calibration }.count }

    /// The record of a finished procedure.
    public init(id: String = UUID().uuidString, name: String?, createdAtSeconds: Double, screenWidth: Double,
                screenHeight: Double, geometry: ScreenGeometry?, sourceKind: String, sourceName: String,
                sourceWidth: Int, sourceHeight: Int, focalLengthPixels: Double? = nil, procedure: CalibrationProcedure,
                outcome: CalibrationOutcome, gazerecVersion: String) {
        self.id = id
        self.name = name
        self.createdAtSeconds = createdAtSeconds
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        screenWidthMillimetres = geometry?.widthMillimetres
        screenHeightMillimetres = geometry?.heightMillimetres
        distanceMillimetres = geometry?.distanceMillimetres
        self.sourceKind = sourceKind
        self.sourceName = sourceName
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.focalLengthPixels = focalLengthPixels
        mode = procedure.scripted ? "scripted" : "interactive"
        settleSeconds = procedure.settleSeconds
        collectSeconds = procedure.collectSeconds
        mapping = outcome.fit.mapping
        trainingErrorPoints = outcome.fit.trainingErrorPoints
        crossValidationErrorPoints = outcome.fit.crossValidationErrorPoints
        blendWeights = outcome.fit.blendWeights
        var targets: [Target] = []
        var samples: [TargetSample] = []
        var calibrationIndex = 0, validationIndex = 0
        for target in procedure.targets {
            let index = targets.count
            switch target.kind {
            case .calibration:
                let fit = outcome.fit.points[calibrationIndex]
                let collected = outcome.calibrationSamples[calibrationIndex].samples
                targets.append(Target(kind: .calibration, position: target.position, collected: collected.count,
                                      used: fit.used, meanErrorPoints: fit.meanErrorPoints,
                                      skipped: fit.skipped.map { outcome.skippedReasons[calibrationIndex] ?? $0.description }))
                samples += collected.map { TargetSample(target: index, features: $0) }
                calibrationIndex += 1
            case .validation:
                let collected = outcome.validationSamples[validationIndex].samples
                targets.append(Target(kind: .validation, position: target.position, collected: collected.count,
                                      validation: outcome.validation.points[validationIndex]))
                samples += collected.map { TargetSample(target: index, features: $0) }
                validationIndex += 1
            }
        }
        self.targets = targets
        self.samples = samples
        validation = outcome.validation.points.isEmpty ? nil : outcome.validation
        self.gazerecVersion = gazerecVersion
    }

    /// The few facts a session records about the calibration it was mapped with.
    public var sessionReference: CalibrationReference {
        CalibrationReference(
            id: id, name: name, createdAtSeconds: createdAtSeconds, points: calibrationPointCount,
            accuracyPoints: validation?.accuracyPoints.finite.map { $0.rounded(toDecimals: 2) },
            accuracyDegrees: validation?.accuracyDegrees?.finite.map { $0.rounded(toDecimals: 3) },
            viewing: geometry.map {
                ViewingDistances(screenWidthMillimetres: $0.widthMillimetres, screenHeightMillimetres: $0.heightMillimetres,
                                 distanceMillimetres: $0.distanceMillimetres)
            })
    }

}

/// Where one stored calibration applies: its id and mapping, and what sessions record about it.
public struct AppliedCalibration: Sendable {
    public var id: String
    public var mapping: GazeMapping
    public var screenWidth: Double
    public var screenHeight: Double
    /// The focal length its head poses were measured with (nil: the frame width).
    public var focalLengthPixels: Double?
    /// The face model its head poses were measured with (`HeadPoseModelName`): a recording that
    /// applies it measures with the same, so its mapping sees the poses it was fitted on.
    public var headPoseModel: String
    /// What a session mapped with it records (`"gazerec"."calibration"`).
    public var reference: CalibrationReference

    public init(id: String, mapping: GazeMapping, screenWidth: Double, screenHeight: Double, focalLengthPixels: Double?,
                headPoseModel: String = HeadPoseModelName.current, reference: CalibrationReference) {
        self.id = id
        self.mapping = mapping
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.focalLengthPixels = focalLengthPixels
        self.headPoseModel = headPoseModel
        self.reference = reference
    }

    public init(_ record: CalibrationRecord) {
        self.init(id: record.id, mapping: record.mapping, screenWidth: record.screenWidth, screenHeight: record.screenHeight,
                  focalLengthPixels: record.focalLengthPixels, headPoseModel: record.headPoseModel,
                  reference: record.sessionReference)
    }
}

extension Double {
    /// The value when finite, else nil.
    var finite: Double? { isFinite ? self : nil }
}
