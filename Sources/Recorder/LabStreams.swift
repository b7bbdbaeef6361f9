import Foundation
import GazeCapture
import GazeModel
import LabStreaming
import SessionStore

/// What a recording is asked to publish on, and take from, the Lab Streaming Layer.
///
/// `publish` makes the gaze and marker outlets (`LabStreams`); `markerPredicate` subscribes to
/// another program's marker stream (PsychoPy's, say). liblsl is loaded when the request is made,
/// so a machine without it is told before anything records.
public struct LabStreamingRequest: Sendable {
    /// Whether to publish the gaze stream (one sample per analysed frame) and the marker stream.
    public var publish: Bool
    /// The LSL predicate of a marker stream to take markers from, nil for none.
    public var markerPredicate: String?
    /// How long to wait, before the session begins, for a client to subscribe to the gaze stream
    /// (0: not at all), so that a client started first receives every frame.
    public var clientWaitSeconds: Double = 0
    /// How long a marker stream may take to answer.
    public var resolveTimeoutSeconds: Double = 5
    /// Told what the streams could not do (a marker outside the session, a refused sample), on any thread.
    public var warning: @Sendable (String) -> Void = { _ in }
    let library: LabStreamingLibrary

    /// The marker predicate `lsl` alone stands for: any marker stream but gazerec's own.
    public static let defaultMarkerPredicate = "type='Markers' and name!='gazerec-markers'"

    /// A request, with liblsl loaded; `RecorderError.labStreamingUnavailable` without it.
    public init(publish: Bool, markerPredicate: String?,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        self.publish = publish
        self.markerPredicate = markerPredicate
        do {
            library = try LabStreamingLibrary.load(environment: environment)
        } catch {
            throw RecorderError.labStreamingUnavailable(reason: "\(error)")
        }
    }

    /// The predicate a marker source names: `lsl` (the default predicate) or `lsl:PREDICATE`;
    /// nil for any other source (a file, a pipe).
    public static func markerPredicate(source: String) -> String? {
        if source == "lsl" { return defaultMarkerPredicate }
        guard source.hasPrefix("lsl:") else { return nil }
        let predicate = source.dropFirst(4).trimmingCharacters(in: .whitespaces)
        return predicate.isEmpty ? defaultMarkerPredicate : predicate
    }
}

/// A recording's LSL streams: the gaze outlet fed per frame, the marker outlet fed with every
/// marker the session gets, and the inlet whose markers the session gets.
///
/// WHAT THIS OBJECT REPRESENTS
///   The LSL stage of one recording, made before its session begins (the inlet resolved, the
///   outlets published, a client awaited if asked) and begun with it. Markers reach the marker
///   outlet from the store: a `MarkerRelay` reads the session's markers every 0.1 s, whoever added
///   them (`mark` from another process, a marker feed, this inlet), and pushes each new one at
///   its own time.
/// THREAD SAFETY
///   `push` from the frame thread; the inlet and the relay run on their own threads; `begin` and
///   `finish` once each, from the recorder's thread.
final class LabStreams {
    let gaze: GazeOutlet?
    let markers: MarkerOutlet?
    private let inlet: MarkerInlet?
    private let sink: InletMarkerSink
    private var relay: MarkerRelay?
    private let request: LabStreamingRequest
    private var pushFailed = false

    /// The streams of a recording from `input`; `note` hears when no client subscribed in time.
    init(_ request: LabStreamingRequest, input: OpenedFrameSource, note: (String) -> Void) throws {
        self.request = request
        let camera = input.camera != nil ? input.path : (input.path as NSString).lastPathComponent
        let markerIdentity = LabStreamIdentity.markers(camera: camera)
        let sink = InletMarkerSink(warning: request.warning)
        self.sink = sink
        do {
            // The inlet first, and never onto this recording's own marker stream.
            inlet = try request.markerPredicate.map { predicate in
                try MarkerInlet(library: request.library, predicate: "(\(predicate)) and source_id!='\(markerIdentity.sourceID)'",
                                resolveTimeoutSeconds: request.resolveTimeoutSeconds) { sink.store($0) }
            }
            guard request.publish else { (gaze, markers) = (nil, nil); return }
            let rate = input.camera.map { $0.framesPerSecond > 0 ? $0.framesPerSecond : input.requestedFramesPerSecond }
                ?? input.requestedFramesPerSecond
            let clock = LabClock(measuring: request.library)
            gaze = try GazeOutlet(library: request.library, identity: .gaze(camera: camera), nominalRateHertz: rate, clock: clock)
            markers = try MarkerOutlet(library: request.library, identity: markerIdentity, clock: clock)
        } catch LabStreamingError.streamNotFound(_, let timeoutSeconds) {
            // Named as the user gave it, without the exclusion of this recording's own stream.
            let predicate = request.markerPredicate ?? ""
            throw RecorderError.labStreamingFailed(
                reason: LabStreamingError.streamNotFound(predicate: predicate, timeoutSeconds: timeoutSeconds).description)
        } catch let error as LabStreamingError {
            throw RecorderError.labStreamingFailed(reason: error.description)
        }
        if let gaze, request.clientWaitSeconds > 0 {
            if !gaze.waitForConsumers(timeoutSeconds: request.clientWaitSeconds) {
                note("no LSL client subscribed to \(gaze.identity.name) within \(Self.text(request.clientWaitSeconds)) s; "
                     + "recording without one")
            }
        }
    }

    /// Starts taking markers into session `sessionID` (begun at `beginSeconds`, Unix) and relaying
    /// the session's markers to the marker outlet.
    func begin(database: SessionDatabase, sessionID: String, beginSeconds: Double) {
        sink.begin(database: database, sessionID: sessionID, span: RecordingSpan(beginSeconds: beginSeconds))
        inlet?.start()
        if let markers {
            let relay = MarkerRelay(database: database, sessionID: sessionID, outlet: markers, warning: request.warning)
            relay.start()
            self.relay = relay
        }
    }

    /// Publishes one analysed frame at its capture time; a refused sample is said once.
    func push(_ measurement: FrameMeasurement, gaze sample: GazeSample?) {
        guard let gaze, !pushFailed else { return }
        do {
            try gaze.push(measurement, gaze: sample)
        } catch {
            pushFailed = true
            request.warning("\(error) No more frames are published on LSL.")
        }
    }

    /// Stops taking markers, then relays the last ones (before the session closes).
    func finish() {
        inlet?.stop()
        sink.finish()
        relay?.finish()
    }

    private static func text(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// Where an LSL inlet's markers go: into the session once it has begun, if their time lies in it.
final class InletMarkerSink: @unchecked Sendable {
    private let lock = NSLock()
    private var target: (database: SessionDatabase, sessionID: String, span: RecordingSpan)?
    private var open = true
    private let warning: @Sendable (String) -> Void

    init(warning: @escaping @Sendable (String) -> Void) {
        self.warning = warning
    }

    func begin(database: SessionDatabase, sessionID: String, span: RecordingSpan) {
        lock.withLock { target = (database, sessionID, span) }
    }

    func finish() {
        lock.withLock { open = false }
    }

    /// Stores `marker` (from the inlet's thread), or says why not.
    func store(_ marker: Marker) {
        lock.lock()
        defer { lock.unlock() }
        guard open, let target else { return }
        if let refusal = target.span.refusal(of: marker.timestampSeconds, sessionID: target.sessionID) {
            warning("LSL marker '\(marker.label)' not stored: \(refusal)")
            return
        }
        do {
            try target.database.addMarker(marker, sessionID: target.sessionID)
        } catch {
            warning("LSL marker '\(marker.label)' was not stored: \(error)")
        }
    }
}

/// The markers of a session as they are added, pushed to its LSL marker outlet in order.
///
/// Reads the session's markers every `intervalSeconds` on its own thread (markers are few; each
/// read is one short read transaction beside the recorder's) and pushes those it has not pushed.
final class MarkerRelay: @unchecked Sendable {
    private let database: SessionDatabase
    private let sessionID: String
    private let outlet: MarkerOutlet
    private let warning: @Sendable (String) -> Void
    private let intervalSeconds: Double
    private let lock = NSLock()
    private var running = true
    private var pushed = 0
    private let finished = DispatchSemaphore(value: 0)

    init(database: SessionDatabase, sessionID: String, outlet: MarkerOutlet, intervalSeconds: Double = 0.1,
         warning: @escaping @Sendable (String) -> Void) {
        self.database = database
        self.sessionID = sessionID
        self.outlet = outlet
        self.intervalSeconds = intervalSeconds
        self.warning = warning
    }

    func start() {
        let thread = Thread { [self] in
            defer { finished.signal() }
            while lock.withLock({ running }) {
                relay()
                usleep(UInt32(intervalSeconds * 1_000_000))
            }
        }
        thread.name = "gazerec lsl marker relay"
        thread.start()
    }

    /// Stops the thread and pushes what was added since its last read; returns the markers pushed.
    @discardableResult
    func finish() -> Int {
        lock.withLock { running = false }
        finished.wait()
        relay()
        return lock.withLock { pushed }
    }

    private func relay() {
        let markers: [Marker]
        do {
            markers = try database.markers(id: sessionID)
        } catch {
            return warning("cannot read the session's markers for LSL: \(error)")
        }
        let done = lock.withLock { pushed }
        guard markers.count > done else { return }
        for marker in markers[done...] {
            do {
                try outlet.push(marker)
            } catch {
                warning("marker '\(marker.label)' was not published on LSL: \(error)")
            }
        }
        lock.withLock { pushed = markers.count }
    }
}
