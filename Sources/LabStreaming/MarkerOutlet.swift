import CLSL
import GazeModel

/// The LSL stream of a recording's event markers: one string sample per marker, at the marker's
/// time on LSL's clock.
///
/// Type `Markers`, one string channel, irregular rate (nominal rate 0). A sample is the marker's
/// label, or `LABEL<TAB>JSON` when the marker carries data (the marker-line format).
/// THREAD SAFETY: push from any thread; markers from several threads go out in push order.
public final class MarkerOutlet: Sendable {
    /// The stream's name, type and source id.
    public var identity: LabStreamIdentity { outlet.identity }
    /// The mapping of marker times (Unix seconds) onto LSL's clock.
    public let clock: LabClock
    private let outlet: LabOutlet

    /// Publishes the marker stream `identity`.
    public init(library: LabStreamingLibrary, identity: LabStreamIdentity, clock: LabClock? = nil) throws {
        self.clock = clock ?? LabClock(measuring: library)
        outlet = try LabOutlet(library: library, identity: identity, channelCount: 1, nominalRateHertz: 0,
                               format: Int32(GZ_LSL_FORMAT_STRING)) { description in
            let acquisition = description.child("acquisition")
            acquisition.value("manufacturer", "gazerec project")
            acquisition.value("version", GazerecVersion.current)
            let channel = description.child("channels").child("channel")
            channel.value("label", "marker")
            channel.value("type", "Marker")
        }
    }

    /// Pushes `marker` at its own time.
    public func push(_ marker: Marker) throws {
        let text = marker.dataJSON.map { "\(marker.label)\t\($0)" } ?? marker.label
        try outlet.push(string: text, labSeconds: clock.labSeconds(unixSeconds: marker.timestampSeconds))
    }

    /// Whether a client is subscribed.
    public var hasConsumers: Bool { outlet.hasConsumers }

    /// Waits up to `timeoutSeconds` for a client to subscribe; whether one did.
    public func waitForConsumers(timeoutSeconds: Double) -> Bool { outlet.waitForConsumers(timeoutSeconds: timeoutSeconds) }
}
