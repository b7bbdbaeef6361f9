import Foundation
import GazeModel
import JSONStream
import Recorder
import SessionStore
import Synchronization

/// `start --preview`: the current gaze point on the terminal while recording (the iOS package's
/// `showPointer()`), with a short trail and the recorder's state.
///
/// The recorder only hands samples over (a lock and a copy); drawing happens on a thread of its
/// own at most 20 times a second, so a slow terminal never holds up capture. q, Esc or Ctrl-C
/// stop the recording; the terminal is restored however the recording ends.
final class LivePreview: @unchecked Sendable {
    private struct State {
        var trail: [(Double, Double)] = []
        var status: RecorderStatus?
        var gazeSamples = 0
        var lastTrackingState = "starting"
    }

    private let screen = TerminalScreen()
    private let canvas: GazeCanvas
    private let stop: StopRequest
    private let calibrated: Bool
    private let state = Mutex(State())
    private let finished = Atomic<Bool>(false)
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    init(stop: StopRequest, screenWidth: Double, screenHeight: Double, calibrated: Bool) {
        self.stop = stop
        self.calibrated = calibrated
        canvas = GazeCanvas(columns: screen.columns, rows: max(1, screen.rows - 1), screenWidth: screenWidth,
                            screenHeight: screenHeight)
    }

    /// Enters full-screen mode and starts drawing.
    func start() {
        screen.enter()
        let thread = Thread { [self] in
            while !finished.load(ordering: .acquiring) {
                for key in screen.keys() where key == .quit || key == .escape { stop.request() }
                draw()
                usleep(50_000)
            }
            done.signal()
        }
        thread.name = "gazerec.preview"
        self.thread = thread
        thread.start()
    }

    /// One frame's sample (called on the recorder's thread: only copies).
    func update(_ frame: FrameMeasurement, gaze: GazeSample?) {
        state.withLock { state in
            state.lastTrackingState = frame.trackingState.rawValue
            if let gaze {
                state.trail.append((gaze.x, gaze.y))
                if state.trail.count > 12 { state.trail.removeFirst() }
                state.gazeSamples += 1
            }
        }
    }

    func update(_ status: RecorderStatus) {
        state.withLock { $0.status = status }
    }

    /// Stops drawing and restores the terminal (idempotent).
    func finish() {
        guard thread != nil, !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        done.wait()
        screen.leave()
    }

    private func draw() {
        let current = state.withLock { $0 }
        var status = " ● REC"
        if let recorder = current.status {
            let elapsed = Int(recorder.elapsedSeconds)
            status += String(format: " %02d:%02d  %.1f fps", elapsed / 60, elapsed % 60, recorder.achievedFramesPerSecond)
                + "  blinks \(recorder.blinks)  dropped \(recorder.droppedFrames)"
        } else {
            status += " starting (loading the landmark model)…"
        }
        status += "  face \(current.lastTrackingState == "missing" ? "lost" : current.lastTrackingState)"
        status += calibrated ? "  gaze \(current.gazeSamples)" : "  no calibration: no gaze to show"
        status += "  q stops"
        screen.write(canvas.render(trail: current.trail, fixations: [], status: status))
    }
}
