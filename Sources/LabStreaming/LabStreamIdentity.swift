import Foundation

/// The name, type and source id of one of gazerec's LSL streams: stable per station and camera,
/// so LabRecorder finds the stream again after gazerec restarts.
///
/// The rule: the name is `gazerec-gaze` (type `Gaze`) or `gazerec-markers` (type `Markers`); the
/// source id is `gazerec-gaze-HOST-CAMERA` or `gazerec-markers-HOST-CAMERA`, with HOST the
/// machine's host name and CAMERA what the caller names the input by: the camera's device path
/// (`/dev/video0`), or for a replayed file its file name. LabRecorder keys a stream by name, host
/// and source id; liblsl recovers a lost inlet by source id.
public struct LabStreamIdentity: Sendable, Equatable {
    public var name: String
    public var type: String
    public var sourceID: String

    public init(name: String, type: String, sourceID: String) {
        self.name = name
        self.type = type
        self.sourceID = sourceID
    }

    /// The gaze stream of `camera` on `host`.
    public static func gaze(camera: String, host: String = stationHostName()) -> LabStreamIdentity {
        LabStreamIdentity(name: "gazerec-gaze", type: "Gaze", sourceID: "gazerec-gaze-\(host)-\(camera)")
    }

    /// The marker stream of a recording from `camera` on `host`.
    public static func markers(camera: String, host: String = stationHostName()) -> LabStreamIdentity {
        LabStreamIdentity(name: "gazerec-markers", type: "Markers", sourceID: "gazerec-markers-\(host)-\(camera)")
    }

    /// This machine's host name (gethostname), `localhost` when it has none.
    public static func stationHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
}
