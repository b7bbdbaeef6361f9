import ArgumentParser
import Foundation
import GazeCalibration
import GazeCapture
import GazeModel
import GazeVision
import Recorder

/// Options shared by the commands that run the vision pipeline.
struct VisionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The dlib 68-point landmark model (default: GAZEREC_MODEL, else \(LandmarkModel.defaultPath)).",
                               valueName: "path"))
    var model: String?

    @Option(help: ArgumentHelp("dlib's CNN face detector, for faces the HOG detector misses (default: "
                               + "GAZEREC_DETECTOR_MODEL, else the one gazerec's set-up installs, when present).",
                               valueName: "path"))
    var detectorModel: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Camera focal length in pixels for head pose (default: the frame width).", valueName: "pixels"))
    var focalLength: Double?

    func validate() throws {
        if let focalLength, !(focalLength > 0 && focalLength.isFinite) {
            throw ValidationError("--focal-length must be a positive number of pixels.")
        }
    }

    /// Fails at once on a missing model file (before slower work); loading checks the rest.
    func checkModelExists() throws {
        let path = LandmarkModel.resolvePath(model)
        if !FileManager.default.fileExists(atPath: path) { throw VisionError.modelMissing(path: path) }
    }

    /// The source opened and started with the vision pipeline for it (`VisionInput`; `modelFirst` and
    /// `readAhead` as there). The focal length is `--focal-length`, else the calibration's; the head
    /// pose model the calibration's, else this version's.
    func input(_ request: FrameSourceRequest, calibrationFocalLength: Double? = nil,
               calibrationHeadPoseModel: String = HeadPoseModelName.current, modelFirst: Bool = true,
               readAhead: Int? = 8) throws -> VisionInput {
        try VisionInput(modelPath: LandmarkModel.resolvePath(model), source: request, modelFirst: modelFirst,
                        readAhead: readAhead,
                        focalLengthPixels: focalLength, calibrationFocalLengthPixels: calibrationFocalLength,
                        headPoseModel: calibrationHeadPoseModel,
                        finding: { try faceFinding(live: $0.kind == .camera) })
    }

    /// How the pipeline finds faces: with the CNN stages when their model is there (a note says
    /// so when it is not); `live` (a camera) runs the costly stages off the frame thread.
    func faceFinding(live: Bool) throws -> FaceFinding {
        let path = try CNNFaceDetector.resolvePath(detectorModel)
        if path == nil {
            Console.note("no CNN face detector model at \(CNNFaceDetector.installedPath): faces the HOG detector misses "
                         + "(glasses, a fringe, a hand on the chin) stay unfound. Scripts/setup-models.sh installs it.")
        }
        let rule = try Self.benchmarkUprightRule() ?? FaceFinding().uprightRule
        return FaceFinding(cnnModelPath: path, background: live, uprightRule: rule)
    }

    /// The upright check's rule `GAZEREC_BENCH_UPRIGHT_RULE` names (`UprightRule`), so the rules
    /// before and the candidates can be counted on labelled clips (nil: this version's). Not a
    /// documented option; a session names the rule it was recorded with.
    static func benchmarkUprightRule() throws -> UprightRule? {
        guard let name = ProcessInfo.processInfo.environment["GAZEREC_BENCH_UPRIGHT_RULE"], !name.isEmpty else { return nil }
        guard let rule = UprightRule(rawValue: name) else {
            throw UsageError(message: "GAZEREC_BENCH_UPRIGHT_RULE=\(name) is no upright rule; use one of "
                             + UprightRule.allCases.map(\.rawValue).joined(separator: ", ") + ", or unset it.")
        }
        return rule
    }
}

/// How frames from a camera or a video are turned before analysis: for the commands that read
/// them as they come (not `reanalyze`, whose saved video holds the frames already turned).
struct PictureOptions: ParsableArguments {
    @Flag(help: ArgumentHelp("The picture is mirrored (a selfie view, a camera set to flip it): turn it back before analysis, "
                             + "so yaw keeps its sign and each eye its side. A camera that reports its horizontal flip on is "
                             + "turned back without it."))
    var mirror = false

    @Option(help: ArgumentHelp("Turn every frame clockwise by this many degrees before analysis (a camera mounted sideways or "
                               + "upside down), after --mirror. A video's own rotation metadata is applied without it.",
                               valueName: "degrees"))
    var rotate: FrameRotation = .none
}

extension FrameRotation: ExpressibleByArgument {}
