import CLSL
import Foundation
import GazeModel

/// Another program's LSL marker stream (PsychoPy's, say), received as gazerec markers.
///
/// The stream is found by an LSL predicate, an XPath 1.0 condition on its description
/// (`type='Markers'`, `name='PsychoPyMarkers'`, `type='Markers' and hostname='lab-3'`). Each
/// string sample (the first channel) becomes a `Marker` labelled with it, at the sample's LSL
/// timestamp mapped to Unix time: plus the inlet's time correction (the sender's clock onto this
/// machine's LSL clock, as `lsl_time_correction` estimates it), minus this machine's LSL–Unix
/// offset (`LabClock`). Samples are pulled on the inlet's own thread and handed to `handler` there.
/// THREAD SAFETY: `start` once; `stop` from any thread.
public final class MarkerInlet: @unchecked Sendable {
    /// The handler of each received marker, called on the inlet's thread in arrival order.
    public typealias Handler = @Sendable (Marker) -> Void

    /// The name and source id of the stream found.
    public let streamName: String
    public let sourceID: String
    /// This machine's LSL–Unix offset.
    public let clock: LabClock
    private let library: LabStreamingLibrary
    private let inlet: gz_lsl_inlet
    private let handler: Handler
    private let lock = NSLock()
    private var running = false
    private var received = 0
    private var correctionSeconds: Double
    private let finished = DispatchSemaphore(value: 0)

    /// Finds the first stream matching `predicate` within `resolveTimeoutSeconds`, subscribes to
    /// it and reads its first time correction (within the same timeout).
    public init(library: LabStreamingLibrary, predicate: String, resolveTimeoutSeconds: Double = 5, clock: LabClock? = nil,
                handler: @escaping Handler) throws {
        let api = library.api
        let info = try Self.resolve(library: library, predicate: predicate, timeoutSeconds: resolveTimeoutSeconds)
        defer { api.destroy_streaminfo!(info) }
        let name = api.get_name!(info).map { String(cString: $0) } ?? predicate
        guard let inlet = api.create_inlet!(info, 360, 0, 1) else {
            throw LabStreamingError.inletNotCreated(stream: name, reason: library.lastError(or: "liblsl made no inlet"))
        }
        var code: Int32 = 0
        api.open_stream!(inlet, resolveTimeoutSeconds, &code)
        let correction = code == 0 ? api.time_correction!(inlet, resolveTimeoutSeconds, &code) : 0
        guard code == 0 else {
            api.destroy_inlet!(inlet)
            throw LabStreamingError.inletNotCreated(stream: name, reason: code == GZ_LSL_TIMEOUT_ERROR
                ? "it did not answer within \(resolveTimeoutSeconds.secondsText) s" : "liblsl error \(code)")
        }
        self.library = library
        self.inlet = inlet
        self.handler = handler
        self.streamName = name
        self.sourceID = api.get_source_id!(info).map { String(cString: $0) } ?? ""
        self.clock = clock ?? LabClock(measuring: library)
        self.correctionSeconds = correction
    }

    deinit {
        stop()
        library.api.destroy_inlet!(inlet)
    }

    private static func resolve(library: LabStreamingLibrary, predicate: String, timeoutSeconds: Double) throws -> gz_lsl_streaminfo {
        var found = [gz_lsl_streaminfo?](repeating: nil, count: 8)
        let count = library.api.resolve_bypred!(&found, UInt32(found.count), predicate, 1, timeoutSeconds)
        guard count > 0, let first = found[0] else {
            if count < 0 { throw LabStreamingError.inletNotCreated(stream: predicate, reason: library.lastError(or: "liblsl error \(count)")) }
            throw LabStreamingError.streamNotFound(predicate: predicate, timeoutSeconds: timeoutSeconds)
        }
        for extra in found.dropFirst().prefix(Int(count) - 1) { if let extra { library.api.destroy_streaminfo!(extra) } }
        return first
    }

    /// Starts pulling samples on the inlet's own thread.
    public func start() {
        lock.withLock { running = true }
        let thread = Thread { [self] in pull() }
        thread.name = "gazerec lsl markers"
        thread.start()
    }

    /// Stops pulling (within 0.1 s) and returns the number of markers handed on. Samples still in
    /// flight are not handed on.
    @discardableResult
    public func stop() -> Int {
        let wasRunning = lock.withLock {
            defer { running = false }
            return running
        }
        if wasRunning { finished.wait() }
        return lock.withLock { received }
    }

    /// The current time correction: seconds to add to the sender's timestamps.
    public var timeCorrectionSeconds: Double { lock.withLock { correctionSeconds } }

    private func pull() {
        defer { finished.signal() }
        let api = library.api
        var value: UnsafeMutablePointer<CChar>?
        while lock.withLock({ running }) {
            var code: Int32 = 0
            let timestamp = api.pull_sample_str!(inlet, &value, 1, 0.1, &code)
            guard timestamp != 0, code == 0, let text = value else { continue }
            let label = String(cString: text)
            api.destroy_string!(text)
            value = nil
            // After the first estimate, liblsl answers from its background updates at once.
            let correction = api.time_correction!(inlet, 0.5, &code)
            let current = lock.withLock {
                if code == 0 { correctionSeconds = correction }
                received += 1
                return correctionSeconds
            }
            handler(Marker(timestampSeconds: clock.unixSeconds(labSeconds: timestamp + current), label: label))
        }
    }
}
