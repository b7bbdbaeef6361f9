import CONNXRuntime
import Foundation
import GazeCore
import GazeModel

/// Where ONNX Runtime's library and the expression model are.
public struct ExpressionModelFiles: Sendable, Equatable {
    public var runtimePath: String
    public var modelPath: String

    public init(runtimePath: String, modelPath: String) {
        self.runtimePath = runtimePath
        self.modelPath = modelPath
    }

    /// `GAZEREC_ONNXRUNTIME` and `GAZEREC_EXPRESSION_MODEL`, else where Scripts/setup-expressions.sh
    /// installs them: `$XDG_DATA_HOME/gazerec/expressions/` (`~/.local/share/gazerec/expressions/`).
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> ExpressionModelFiles {
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        let folder = dataHome + "/gazerec/expressions"
        func chosen(_ name: String, _ fallback: String) -> String {
            environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? folder + "/" + fallback
        }
        return ExpressionModelFiles(runtimePath: chosen("GAZEREC_ONNXRUNTIME", "libonnxruntime.so"),
                                    modelPath: chosen("GAZEREC_EXPRESSION_MODEL", "fer-mini-xception.onnx"))
    }
}

/// Estimates a face's expression probabilities with the mini-Xception FER model run by ONNX Runtime.
///
/// Loading opens the runtime (dlopen) and the model once; each `probabilities` call then runs the
/// network on one 64 × 64 face crop (see docs/Expressions.md for its cost). Use from one thread
/// at a time.
public final class ExpressionClassifier {
    public let files: ExpressionModelFiles
    /// The runtime's version, e.g. "1.32.0".
    public let runtimeVersion: String
    private let session: OpaquePointer

    /// Opens the runtime and the model, or throws `ExpressionError` saying how to install them.
    public init(files: ExpressionModelFiles = .standard(), threads: Int = 1) throws {
        self.files = files
        guard FileManager.default.fileExists(atPath: files.runtimePath) else {
            throw ExpressionError.runtimeUnavailable(path: files.runtimePath, reason: "no such file")
        }
        guard FileManager.default.fileExists(atPath: files.modelPath) else {
            throw ExpressionError.modelUnavailable(path: files.modelPath, reason: "no such file")
        }
        var error = [CChar](repeating: 0, count: 1024)
        guard let session = gz_ort_session_open(files.runtimePath, files.modelPath, Int32(threads), &error, error.count) else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw reason.hasPrefix("cannot load the model")
                ? ExpressionError.modelUnavailable(path: files.modelPath, reason: reason)
                : ExpressionError.runtimeUnavailable(path: files.runtimePath, reason: reason)
        }
        self.session = session
        runtimeVersion = String(cString: gz_ort_session_runtime_version(session))
    }

    deinit { gz_ort_session_close(session) }

    /// The expression probabilities of the face with these landmarks in `image`.
    public func probabilities(image: GrayImage, landmarks: FaceLandmarks) throws -> ExpressionProbabilities {
        try probabilities(FaceCrop(image: image, landmarks: landmarks))
    }

    /// The expression probabilities of one face crop.
    public func probabilities(_ crop: FaceCrop) throws -> ExpressionProbabilities {
        ExpressionProbabilities(modelOutput: try run(crop.values))
    }

    /// The model's raw output (FER-2013's order) for a 64 × 64 input of −1…1 values.
    public func run(_ input: [Float]) throws -> [Float] {
        precondition(input.count == FaceCrop.side * FaceCrop.side)
        var output = [Float](repeating: 0, count: ExpressionName.allCases.count)
        var error = [CChar](repeating: 0, count: 1024)
        let shape: [Int64] = [1, Int64(FaceCrop.side), Int64(FaceCrop.side), 1]
        let status = gz_ort_session_run(session, "input", input, input.count, shape, shape.count, "probabilities",
                                        &output, output.count, &error, error.count)
        guard status == 0 else {
            throw ExpressionError.inferenceFailed(
                reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return output
    }
}
