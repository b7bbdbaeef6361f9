import ContentDigest
import Foundation
import GazeModel
import JSONStream

/// How a presentation run ended.
public enum PresenterOutcome: Sendable, Equatable {
    /// Every item was shown to its end.
    case allShown
    /// The participant pressed Esc or q in the player.
    case participantQuit
    /// The recording ended first (`stop`).
    case stopped
    /// The player exited on its own or was killed; the reason says how.
    case playerDied(reason: String)

    /// A sentence for the session's `endedBy`, nil when every item was shown.
    public var endedBy: String? {
        switch self {
        case .allShown: nil
        case .participantQuit: "the participant ended the presentation (Esc or q in the player)"
        case .stopped: nil
        case let .playerDied(reason): "the stimulus player died: \(reason)"
        }
    }
}

/// The stimulus presenter: Debian's mpv run as a child process, driven over its JSON IPC socket.
///
/// The player runs in its own process, so a crash of the player cannot take the recorder down and
/// every sample stays stored; it needs no libmpv C target; and every property and event libmpv
/// offers is available over the socket. `launch` starts it on a grey standby screen (and reads the
/// display's size); `play` shows the items one after another on the player's own thread; each
/// report the player sends is stamped with `clock` (the session's clock) the moment it arrives and
/// folded into the current item's `Presentation` (`PresentationTracker`). `takeUpdates` hands the
/// presentations changed since the last call to the recorder, which stores them on its own thread.
/// THREAD SAFETY: every public member may be called from any thread.
public final class StimulusPresenter: @unchecked Sendable {
    public let settings: PresenterSettings
    /// The player's control socket (for a test or a tool that drives the player too).
    public let socketPath: String
    /// The display's size in pixels as the player measured it on its full-screen window; nil if unknown.
    public internal(set) var displayPixels: (width: Int, height: Int)?
    /// The player's video output (mpv's `current-vo`), nil while it has none.
    public internal(set) var videoOutput: String?

    let clock: @Sendable () -> Double
    let folder: String
    let process: Process
    let connection: PlayerConnection
    let state = NSCondition()
    var tracker: PresentationTracker?
    /// Ended presentations not yet taken, and whether the current one changed since the last take.
    var endedUntaken: [Presentation] = []
    var currentChanged = false
    var stopping = false
    var closed = false
    var outcomeValue: PresenterOutcome?
    var controlThreadStarted = false
    /// Each item's file size and SHA-256 (nil for a blank or a file that could not be read).
    var fileFacts: [FileDigest?] = []
    private var standbyShown = false
    /// The standby screen ended before it was shown: the player opened no video output.
    private var standbyFailed = false
    /// How the player died, when it did not exit because it was asked to.
    var deathReason: String?

    /// Starts the player on a grey full screen and waits until it reports the display's size.
    /// Throws `playerMissing` when mpv is not installed, `playerDidNotStart` when it fails to open.
    public static func launch(_ settings: PresenterSettings, clock: @escaping @Sendable () -> Double) throws -> StimulusPresenter {
        guard let program = PresenterChecks.playerPath(settings.playerProgram) else { throw PresenterError.playerMissing }
        let template = (NSTemporaryDirectory() as NSString).appendingPathComponent("gazerec-present-XXXXXX")
        var bytes = Array(template.utf8CString)
        guard bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { throw PresenterError.playerDidNotStart(reason: String(cString: strerror(errno))) }
        let folder = bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        Self.registerTemporaryFiles(folder)
        do {
            try PresenterSettings.inputConfiguration.write(toFile: folder + "/input.conf", atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: program)
            var environment = ProcessInfo.processInfo.environment
            if let display = settings.display { environment["DISPLAY"] = display }
            let onX11 = !(environment["DISPLAY"] ?? "").isEmpty
            environment["SDL_VIDEODRIVER"] = PresenterSettings.sdlDriver(onX11: onX11)
            process.environment = environment
            process.arguments = settings.playerArguments(folder: folder, onX11: onX11)
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let connection: PlayerConnection
            do {
                connection = try PlayerConnection(socketPath: folder + "/mpv.sock", timeoutSeconds: settings.startTimeoutSeconds,
                                                  alive: { process.isRunning })
            } catch {
                if process.isRunning { process.terminate() }
                throw error
            }
            let presenter = StimulusPresenter(settings: settings, folder: folder, process: process, connection: connection, clock: clock)
            // Every file's size and SHA-256 now, before the recording: hashing a long video between
            // two items would hold the grey screen for seconds.
            presenter.fileFacts = settings.items.map { item in item.path.flatMap { try? FileDigest(path: $0) } }
            presenter.startReading()
            presenter.standBy()
            try presenter.checkWindow(onX11: onX11, display: environment["DISPLAY"] ?? environment["WAYLAND_DISPLAY"] ?? "")
            return presenter
        } catch {
            Self.removeTemporaryFiles(folder)
            throw (error as? PresenterError) ?? PresenterError.playerDidNotStart(reason: "\(error)")
        }
    }

    /// Throws `playerDidNotStart` (the player stopped) unless the player opened a window with one of
    /// the window system's video outputs: one that did not (the display cannot be opened) shows nothing.
    private func checkWindow(onX11: Bool, display: String) throws {
        state.lock()
        let output = videoOutput
        state.unlock()
        let accepted = onX11 ? PresenterSettings.x11Outputs : PresenterSettings.waylandOutputs
        guard let output, accepted.contains(output) else {
            stop()
            throw PresenterError.playerDidNotStart(reason: "it opened no window on the display \(display) (its video output: "
                                                   + "\(videoOutput ?? "none")); check that this display is the participant's screen")
        }
    }

    /// The player's private folder and the files it holds, registered so that a signal ending this
    /// process removes them too (`TemporaryFiles`).
    static let folderFiles = ["mpv.sock", "mpv.log", "input.conf"]

    private static func registerTemporaryFiles(_ folder: String) {
        for name in folderFiles { TemporaryFiles.register(folder + "/" + name) }
        TemporaryFiles.register(folder)
    }

    /// Removes the player's private folder (socket, log, key bindings) and its registration: once
    /// the player has exited, on every ending (the last item, Esc or q, the player's death, a stop).
    static func removeTemporaryFiles(_ folder: String) {
        try? FileManager.default.removeItem(atPath: folder)
        for name in folderFiles { TemporaryFiles.unregister(folder + "/" + name) }
        TemporaryFiles.unregister(folder)
    }

    private init(settings: PresenterSettings, folder: String, process: Process, connection: PlayerConnection,
                 clock: @escaping @Sendable () -> Double) {
        self.settings = settings
        self.folder = folder
        self.process = process
        self.connection = connection
        self.clock = clock
        socketPath = folder + "/mpv.sock"
    }

    /// The properties every presentation is built from. mpv sends the changes of one moment in the
    /// order they were observed in, so `pause` comes before `time-pos`: a resume is told before the
    /// position moves on from where it was paused.
    static let observed = ["pause", "paused-for-cache", "seeking", "osd-dimensions", "duration", "container-fps",
                           "estimated-vf-fps", "width", "height", "display-width", "display-height", "time-pos", "current-vo"]

    private func startReading() {
        for (number, name) in Self.observed.enumerated() {
            connection.send([.string("observe_property"), .number(Double(number + 1)), .string(name)])
        }
        let thread = Thread { [self] in
            connection.read(clock: clock) { message, time in observe(message, at: time) }
            playerClosed()
        }
        thread.name = "gazerec presenter reader"
        thread.start()
    }

    /// Shows the grey standby screen and waits (up to the start timeout) until it is shown, with the
    /// display's size and the player's video output known.
    private func standBy() {
        connection.send([.string("loadfile"), .string(PresenterSettings.standbySource())])
        let deadline = Date().addingTimeInterval(settings.startTimeoutSeconds)
        state.lock()
        // The standby's own start is waited for too: mpv may tell the display's size before it (the
        // gpu output does), and a standby starting after the first item's tracker would be taken for it.
        while (displayPixels == nil || videoOutput == nil || !standbyShown) && !closed && !standbyFailed
            && state.wait(until: deadline) {}
        state.unlock()
    }

    private var displayWidth: Int?, displayHeight: Int?
    var latestDimensions: OSDDimensions?

    /// The display's size: mpv's `display-width` and `display-height`, or else the size of its
    /// full-screen window (`osd-dimensions`) once it shows the standby screen (mpv 0.35 under a
    /// server without a window manager reports no display size).
    private func measureDisplay(_ message: PlayerMessage) {
        guard displayPixels == nil else { return }
        switch message {
        case let .property("display-width", .number(value)?): displayWidth = Int(value)
        case let .property("display-height", .number(value)?): displayHeight = Int(value)
        case let .property("osd-dimensions", .dimensions(dimensions)?) where dimensions.videoRect != nil && standbyShown:
            displayWidth = displayWidth ?? Int(dimensions.width)
            displayHeight = displayHeight ?? Int(dimensions.height)
        default: break
        }
        if let displayWidth, let displayHeight {
            displayPixels = (displayWidth, displayHeight)
            state.broadcast()
        }
    }

    private func observe(_ message: PlayerMessage, at time: Double) {
        state.lock()
        defer { state.unlock() }
        switch message {
        case let .property("current-vo", value):
            if case let .text(name)? = value { videoOutput = name } else { videoOutput = nil }
            state.broadcast()
        case .event("end-file", _) where !standbyShown && tracker == nil:
            standbyFailed = true
            state.broadcast()
        case .event("playback-restart", _) where tracker == nil:
            standbyShown = true
            state.broadcast()
        default: break
        }
        measureDisplay(message)
        if case let .property("osd-dimensions", .dimensions(dimensions)?) = message { latestDimensions = dimensions }
        guard tracker != nil, tracker?.ended == false else { return }
        tracker!.latestDimensions = latestDimensions
        tracker!.observe(message, at: time)
        if tracker!.hasOnset { currentChanged = true }
        if tracker!.ended { state.broadcast() }
    }
}
