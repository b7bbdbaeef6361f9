import Foundation
import GazeModel
import SessionStore

/// A scratch folder with a database, and the built binary run against it.
public struct Workspace {
    public let folder: TemporaryFolder
    public var database: String { folder.path("db.sqlite") }
    public init() throws { folder = try TemporaryFolder() }
    public func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try Binary.run(arguments, environment: ["GAZEREC_DATABASE": database].merging(environment) { $1 })
    }
    public func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// A session of `samples` scan-path samples (60 Hz) written straight into the store.
    public func storeSession(samples: Int, ended: Bool = true) throws -> String {
        try Self.storeSession(in: database, samples: samples, ended: ended)
    }

    /// A session of `samples` scan-path samples (60 Hz) written straight into the store at `path`.
    public static func storeSession(in path: String, samples: Int, ended: Bool = true) throws -> String {
        let database = try SessionDatabase(path: path)
        let id = UUID().uuidString
        let begin = 1_700_000_000.0
        let writer = try SessionWriter(
            database: database,
            header: SessionHeader(id: id, appID: "trial", beginTimeSeconds: begin, endTimeSeconds: nil,
                                  deviceInfo: DeviceInfo(model: "test", screenWidth: 1920, screenHeight: 1080,
                                                         systemName: "Linux", systemVersion: "6")),
            blendShapeNames: [], recorderPID: 999_999)
        var batch = SampleBatchToAppend()
        batch.gaze = (0..<samples).map {
            GazeSample(timestampSeconds: begin + Double($0) / 60, x: Double($0 % 1920), y: Double($0 % 1080) + 0.25,
                       orientation: 3)
        }
        try writer.append(batch)
        if ended { try writer.close(endTimeSeconds: begin + Double(samples) / 60, gazerecExtension: nil) }
        return id
    }
}
