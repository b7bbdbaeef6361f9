import CLSL
import GazeModel

/// The LSL stream of a recording's gaze: one sample per analysed frame, stamped with the frame's
/// capture time on LSL's clock.
///
/// Type `Gaze`, `GazeChannel.all.count` float32 channels (`GazeChannel.all`), nominal rate the
/// recording's frame rate. The description carries `channels/channel/{label,unit,type,eye}` per
/// channel and `acquisition/{manufacturer,model,version}`.
/// THREAD SAFETY: push from one thread (the recorder's), in frame order.
public final class GazeOutlet: Sendable {
    /// The stream's name, type and source id.
    public var identity: LabStreamIdentity { outlet.identity }
    /// The mapping of frame times (Unix seconds) onto LSL's clock, measured when the outlet was made.
    public let clock: LabClock
    private let outlet: LabOutlet

    /// Publishes the gaze stream `identity` at `nominalRateHertz` (the frame rate).
    public init(library: LabStreamingLibrary, identity: LabStreamIdentity, nominalRateHertz: Double,
                clock: LabClock? = nil) throws {
        self.clock = clock ?? LabClock(measuring: library)
        outlet = try LabOutlet(library: library, identity: identity, channelCount: GazeChannel.all.count,
                               nominalRateHertz: nominalRateHertz, format: Int32(GZ_LSL_FORMAT_FLOAT32)) { description in
            let acquisition = description.child("acquisition")
            acquisition.value("manufacturer", "gazerec project")
            acquisition.value("model", "webcam eye tracker")
            acquisition.value("version", GazerecVersion.current)
            let channels = description.child("channels")
            for channel in GazeChannel.all {
                let node = channels.child("channel")
                node.value("label", channel.label)
                node.value("unit", channel.unit)
                node.value("type", channel.type)
                if let eye = channel.eye { node.value("eye", eye) }
            }
        }
    }

    /// Pushes one frame: its measurement and the gaze mapped from it (nil without a calibration
    /// or a face), stamped with the frame's capture time mapped onto LSL's clock.
    public func push(_ measurement: FrameMeasurement, gaze: GazeSample?) throws {
        let values = GazeChannel.values(of: measurement, gaze: gaze)
        try values.withUnsafeBufferPointer { buffer in
            try outlet.push(floats: buffer.baseAddress!, labSeconds: clock.labSeconds(unixSeconds: measurement.timestampSeconds))
        }
    }

    /// Whether a client (LabRecorder, say) is subscribed.
    public var hasConsumers: Bool { outlet.hasConsumers }

    /// Waits up to `timeoutSeconds` for a client to subscribe; whether one did.
    public func waitForConsumers(timeoutSeconds: Double) -> Bool { outlet.waitForConsumers(timeoutSeconds: timeoutSeconds) }
}
