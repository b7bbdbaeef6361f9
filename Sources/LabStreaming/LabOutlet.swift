import CLSL
import Foundation

/// One published LSL stream: its description and outlet, destroyed with it.
///
/// THREAD SAFETY: pushes from one thread at a time (liblsl's outlet is thread safe, but a
/// stream's samples must go out in time order).
final class LabOutlet: @unchecked Sendable {
    let library: LabStreamingLibrary
    let identity: LabStreamIdentity
    private let outlet: gz_lsl_outlet

    /// Publishes a stream of `channelCount` channels in `format`; `describe` adds to the
    /// description (`desc`) before the outlet is made, since an outlet's description is fixed.
    init(library: LabStreamingLibrary, identity: LabStreamIdentity, channelCount: Int, nominalRateHertz: Double,
         format: Int32, describe: (LabDescription) -> Void) throws {
        self.library = library
        self.identity = identity
        let api = library.api
        guard let info = api.create_streaminfo!(identity.name, identity.type, Int32(channelCount), nominalRateHertz, format,
                                                identity.sourceID) else {
            throw LabStreamingError.outletNotCreated(stream: identity.name, reason: library.lastError(or: "liblsl made no stream description"))
        }
        defer { api.destroy_streaminfo!(info) }
        describe(LabDescription(api: api, node: api.get_desc!(info)))
        // Samples are sent as they are pushed (chunk size 0 with push-through); 360 s buffered for a slow reader.
        guard let outlet = api.create_outlet!(info, 0, 360) else {
            throw LabStreamingError.outletNotCreated(stream: identity.name, reason: library.lastError(or: "liblsl made no outlet"))
        }
        self.outlet = outlet
    }

    deinit { library.api.destroy_outlet!(outlet) }

    /// Whether an inlet (LabRecorder, a client) is subscribed.
    var hasConsumers: Bool { library.api.have_consumers!(outlet) != 0 }

    /// Waits up to `timeoutSeconds` for a subscriber; whether one came.
    func waitForConsumers(timeoutSeconds: Double) -> Bool { library.api.wait_for_consumers!(outlet, timeoutSeconds) != 0 }

    func push(floats: UnsafePointer<Float>, labSeconds: Double) throws {
        let code = library.api.push_sample_ftp!(outlet, floats, labSeconds, 1)
        if code != 0 { throw LabStreamingError.pushFailed(stream: identity.name, code: code) }
    }

    func push(string: String, labSeconds: Double) throws {
        let code = string.withCString { text in
            var values: [UnsafePointer<CChar>?] = [text]
            return library.api.push_sample_strtp!(outlet, &values, labSeconds, 1)
        }
        if code != 0 { throw LabStreamingError.pushFailed(stream: identity.name, code: code) }
    }
}

/// A node of a stream's XML description, to append children to.
struct LabDescription {
    let api: gz_lsl_api
    let node: gz_lsl_xml?

    /// Appends an empty child `name` and returns it.
    @discardableResult
    func child(_ name: String) -> LabDescription { LabDescription(api: api, node: api.append_child!(node, name)) }

    /// Appends a child `name` holding `value`.
    func value(_ name: String, _ value: String) { _ = api.append_child_value!(node, name, value) }
}
