import Foundation
import GazeModel
import JSONStream

/// The live figures a recorder publishes for `gazerec status` (`<database>.recorder-status`).
public struct RecorderStatus: Codable, Sendable, Equatable {
    public var pid: Int32
    public var sessionID: String
    public var source: String
    public var elapsedSeconds: Double
    public var frames: Int
    public var framesWithFace: Int
    public var achievedFramesPerSecond: Double
    public var droppedFrames: Int
    public var blinks: Int
    /// The newest frame's tracking state, or that the recording has ended.
    public var trackingState: State
    public var updatedAt: Double
    /// A warning about the data being recorded now (no face for seconds), if any.
    public var warning: String? = nil
    /// The recorder's CPU time since it began recording over the time since, in percent of one
    /// core (all its threads; 100 = one core busy all the time).
    public var cpuPercentOfOneCore: Double? = nil

    /// What `trackingState` says: a frame's tracking state, or the end (written as the state's
    /// name, or `ended`).
    public enum State: Codable, Sendable, Equatable, CustomStringConvertible {
        /// The tracking state of the newest frame.
        case frame(TrackingState)
        /// The recording has ended.
        case ended

        public var description: String {
            switch self {
            case .frame(let state): return state.rawValue
            case .ended: return "ended"
            }
        }

        public init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            if text == "ended" {
                self = .ended
            } else if let state = TrackingState(rawValue: text) {
                self = .frame(state)
            } else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                        debugDescription: "not a tracking state: \(text)"))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(description)
        }
    }

    public var faceFoundPercent: Double { frames > 0 ? 100 * Double(framesWithFace) / Double(frames) : 0 }

    /// Writes the status whole or not at all (`AtomicFile`, unsynchronized: it is rewritten twice a
    /// second on the frame thread, and a status lost to a power cut tells nothing anyone needs).
    public func write(databasePath: String) {
        guard let bytes = try? JSONDocument.bytes(encoding: self, pretty: false, lineBreak: false) else { return }
        try? AtomicFile.write(bytes, to: RecorderLock.statusPath(databasePath: databasePath), synchronized: false)
    }

    public static func read(databasePath: String) -> RecorderStatus? {
        guard let data = FileManager.default.contents(atPath: RecorderLock.statusPath(databasePath: databasePath)) else {
            return nil
        }
        return try? JSONDecoder().decode(RecorderStatus.self, from: data)
    }
}
