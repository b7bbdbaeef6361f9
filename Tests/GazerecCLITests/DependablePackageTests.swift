import Foundation
import SessionStore
import Testing
import TestSupport

/// Another Swift package can depend on gazerec's libraries by version: SwiftPM loads the package
/// graph (where it refuses a version-pinned dependency whose products carry flags it does not
/// accept) without an error.
@Suite("a package that depends on gazerec")
struct DependablePackageTests {
    /// This tree's manifest and sources, committed and tagged in a scratch repository, as a
    /// version-pinned dependency of a new package that uses the `GazeKit` and `LabServer` products.
    @Test("a version-pinned dependency on GazeKit and LabServer loads")
    func loadsAsVersionedDependency() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let dependency = folder.url.appendingPathComponent("gazerec")
        let consumer = folder.url.appendingPathComponent("consumer")
        try FileManager.default.createDirectory(at: dependency, withIntermediateDirectories: true)
        for item in ["Package.swift", "Sources", "Tests"] {
            try FileManager.default.copyItem(at: Fixtures.repositoryRoot.appendingPathComponent(item),
                                             to: dependency.appendingPathComponent(item))
        }
        let git = ["-C", dependency.path, "-c", "user.name=test", "-c", "user.email=test@example.invalid"]
        for arguments in [["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"], ["tag", "1.0.0"]] {
            let step = try Binary.runProcess("/usr/bin/git", git + arguments)
            try #require(step.status == 0, "git \(arguments.joined(separator: " ")): \(step.stderr)")
        }
        try FileManager.default.createDirectory(at: consumer.appendingPathComponent("Sources/Consumer"), withIntermediateDirectories: true)
        try """
            // swift-tools-version:6.1
            import PackageDescription
            let package = Package(
                name: "consumer",
                dependencies: [.package(url: "\(dependency.absoluteString)", exact: "1.0.0")],
                targets: [.executableTarget(name: "Consumer", dependencies: [
                    .product(name: "GazeKit", package: "gazerec"), .product(name: "LabServer", package: "gazerec"),
                ])]
            )
            """.write(to: consumer.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "import GazeKit\n".write(to: consumer.appendingPathComponent("Sources/Consumer/main.swift"), atomically: true, encoding: .utf8)

        let loaded = try Binary.runProcess("/usr/bin/env", ["swift", "package", "--package-path", consumer.path, "show-dependencies"])

        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(!loaded.stderr.contains("unsafe build flags"), "\(loaded.stderr)")
        #expect(loaded.stdout.contains("gazerec<"), "\(loaded.stdout)")
    }

    /// A program of another package, depending on this tree by path, whose only import of ours is
    /// `GazeKit`: it records a session from a shared clip into a database of its own, exports it as
    /// EyeTracking JSON and runs a stimulus timeline over it, naming on the way the types of the
    /// recording's configuration that come from FaceExpression and LabStreaming. Slow: `swift build`
    /// builds every module of ours again, in a scratch folder inside the temporary one.
    @Test("a program that imports GazeKit alone records a clip, exports it and runs a stimulus analysis",
          .enabled(if: Fixtures.available, Fixtures.missingReason),
          .enabled(if: FileManager.default.fileExists(atPath: dlibModel), "dlib's landmark model is not installed (Scripts/setup-models.sh)"))
    func gazeKitAlone() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let consumer = folder.url.appendingPathComponent("consumer")
        try FileManager.default.createDirectory(at: consumer.appendingPathComponent("Sources/Study"), withIntermediateDirectories: true)
        try """
            // swift-tools-version:6.1
            import PackageDescription
            let package = Package(
                name: "study",
                dependencies: [.package(name: "gazerec", path: "\(Fixtures.repositoryRoot.path)")],
                targets: [.executableTarget(name: "Study", dependencies: [.product(name: "GazeKit", package: "gazerec")])]
            )
            """.write(to: consumer.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try Self.studyProgram.write(to: consumer.appendingPathComponent("Sources/Study/main.swift"), atomically: true, encoding: .utf8)

        let scratch = folder.url.appendingPathComponent("scratch").path
        let build = try Binary.runProcess("/usr/bin/env", ["swift", "build", "--package-path", consumer.path, "--scratch-path", scratch])
        try #require(build.status == 0, "swift build of a GazeKit program failed:\n\(build.stdout.suffix(4000))\n\(build.stderr.suffix(2000))")

        let database = folder.path("study.sqlite")
        let run = try Binary.runProcess(scratch + "/debug/Study", [Fixtures.path("video/cap13_blinks_20s.mp4"), Self.dlibModel, database])
        try #require(run.status == 0, "\(run.stderr)")
        let fields = Dictionary(uniqueKeysWithValues: run.stdout.split(separator: " ").compactMap { field -> (String, String)? in
            let parts = field.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        })
        // The recording is the store's: the same session, frames and gaze samples read back here.
        let store = try SessionDatabase(path: database)
        let id = try #require(fields["session"])
        #expect(try store.sessionIDs() == [id])
        #expect(Int(fields["frames"] ?? "") == (try store.frameCount(id: id).count))
        #expect(Int(fields["frames"] ?? "0")! > 0)
        #expect(fields["exported"] == id)
        #expect(Int(fields["exportedSamples"] ?? "") == (try store.scanPath(id: id).samples.count))
        // The timeline has a row per second of the session, or says why it left the session out.
        #expect((Int(fields["timelineRows"] ?? "0") ?? 0) + (Int(fields["skipped"] ?? "0") ?? 0) > 0, "\(run.stdout)")
    }

    static let dlibModel = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"

    /// The dependant's program: `Study CLIP MODEL DATABASE` prints `key=value` fields.
    static let studyProgram = """
        import Foundation
        import GazeKit

        let arguments = CommandLine.arguments
        var configuration = RecordingConfiguration(
            source: FrameSourceRequest(.file(path: arguments[1])), databasePath: arguments[3], modelPath: arguments[2],
            appID: "study", blendShapes: [.jawOpen], screenWidth: 1280, screenHeight: 800, orientation: 3,
            maximumDurationSeconds: 3, focalLengthPixels: nil)
        // Types of the configuration's public API from FaceExpression and LabStreaming, named through GazeKit.
        let expressions: ExpressionModelFiles? = nil
        let streaming: LabStreamingRequest? = nil
        configuration.expressions = expressions
        configuration.labStreaming = streaming
        let result = try RecordingRun(configuration: configuration, stop: StopRequest()).run()
        if let failure = result.failure { throw failure }

        let database = try SessionDatabase(path: arguments[3])
        let sink = MemoryByteSink()
        try database.export(ids: [result.sessionID], asArray: false, to: sink)
        let exported = try JSONValue.parse(Array(sink.text.utf8))

        let screen = StimulusFile(path: "screen.png", widthPixels: 1280, heightPixels: 800, framesPerSecond: nil, durationSeconds: nil)
        let study = try StimulusStudy(stimulus: screen, screenX: 0, screenY: 0, screenWidth: 1280, screenHeight: 800)
        let timeline = try study.timeline(database, ids: [result.sessionID], binSeconds: 1, group: false)

        var exportedID = "-"
        if case .string(let text)? = exported["id"] { exportedID = text }
        print("session=\\(result.sessionID) frames=\\(result.frames)", "exported=\\(exportedID)",
              "exportedSamples=\\(exported["scanPath"]?.arrayValue?.count ?? -1)",
              "timelineRows=\\(timeline.table.rows.count) skipped=\\(timeline.skipped.count)")
        """
}

