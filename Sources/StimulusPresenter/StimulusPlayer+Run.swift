import Foundation
import GazeModel
import JSONStream

extension StimulusPresenter {
    /// Shows the items one after another on the presenter's own thread, from now on.
    public func play() {
        let thread = Thread { [self] in
            let outcome = showItems()
            finish(outcome)
        }
        thread.name = "gazerec presenter"
        thread.start()
    }

    /// Whether the run has ended (every item shown, Esc or q, `stop`, or the player's death).
    public var outcome: PresenterOutcome? {
        state.lock()
        defer { state.unlock() }
        return outcomeValue
    }

    /// The presentations that changed since the last call, each as it now stands, in their order:
    /// the ones that ended, then the one shown (once its first frame is on the screen).
    public func takeUpdates() -> [Presentation] {
        state.lock()
        defer { state.unlock() }
        var updates = endedUntaken
        endedUntaken = []
        if currentChanged, let tracker, !tracker.ended { updates.append(tracker.presentation) }
        currentChanged = false
        return updates
    }

    /// Ends the run because the recording ended: the item on the screen is cut short, the player
    /// quits (or is terminated after 2 s), and the last presentations wait in `takeUpdates`.
    public func stop() {
        state.lock()
        stopping = true
        let time = clock()
        endCurrent(at: time, ending: .cutShort(reason: "the recording was stopped"))
        state.unlock()
        connection.send([.string("quit"), .number(0)])
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        state.lock()
        while outcomeValue == nil && controlThreadStarted { _ = state.wait(until: Date().addingTimeInterval(0.1)) }
        if outcomeValue == nil { outcomeValue = .stopped }
        state.unlock()
        Self.removeTemporaryFiles(folder)
    }

    /// Ends the current presentation (with the lock held) and queues it for `takeUpdates`.
    func endCurrent(at time: Double, ending: Presentation.Ending) {
        guard var current = tracker, !current.ended else { return }
        current.end(at: time, ending: ending)
        tracker = current
        state.broadcast()
    }

    /// Each item in turn: loaded, then waited for until it ends; the outcome when none is left or the run ends.
    private func showItems() -> PresenterOutcome {
        controlThreadStarted = true
        let pointsPerPixel = self.pointsPerPixel
        for (index, item) in settings.items.enumerated() {
            let facts = index < fileFacts.count ? fileFacts[index] : nil
            state.lock()
            if stopping || closed {
                state.unlock()
                break
            }
            tracker = PresentationTracker(index: index, item: item, fileFacts: facts, pointsPerPixel: pointsPerPixel)
            state.unlock()
            load(item)
            state.lock()
            while !(tracker?.ended ?? true) { state.wait() }
            let shown = tracker!.presentation
            endedUntaken.append(shown)
            state.unlock()
            if case .cutShort = shown.ending ?? .finished, !isPlayerError(shown) { break }
        }
        state.lock()
        defer { state.unlock() }
        if stopping { return .stopped }
        if let died = deathReason { return .playerDied(reason: died) }
        if let last = endedUntaken.last ?? tracker?.presentation, last.ending == PresentationTracker.ending(reason: "quit") {
            return .participantQuit
        }
        return .allShown
    }

    /// An item the player could not play: the run goes on with the next one.
    private func isPlayerError(_ presentation: Presentation) -> Bool {
        presentation.ending == PresentationTracker.ending(reason: "error")
    }

    /// Sets the item's showing time and loads it, replacing what is on the screen.
    private func load(_ item: PresentationItem) {
        let end = item.kind == .video ? item.seconds.map { String($0) } ?? "none" : "none"
        connection.send([.string("set_property"), .string("end"), .string(end)])
        connection.send([.string("set_property"), .string("pause"), .bool(false)])
        if item.kind == .image {
            connection.send([.string("set_property"), .string("image-display-duration"), .number(item.seconds ?? 5)])
        }
        let source = item.path.map { URL(fileURLWithPath: $0).path }
            ?? PresenterSettings.blankSource(width: displayPixels?.width ?? 1920, height: displayPixels?.height ?? 1080,
                                             seconds: item.seconds)
        connection.send([.string("loadfile"), .string(source), .string("replace")])
    }

    /// Screen points per display pixel, along x and y.
    private var pointsPerPixel: (x: Double, y: Double) {
        guard let screen = settings.screenPoints, let display = displayPixels, display.width > 0, display.height > 0 else { return (1, 1) }
        return (screen.width / Double(display.width), screen.height / Double(display.height))
    }
}

extension StimulusPresenter {
    /// The run's end: the player asked to quit (and terminated after 2 s), its temporary folder
    /// removed, the outcome published.
    func finish(_ outcome: PresenterOutcome) {
        connection.send([.string("quit"), .number(0)])
        waitForExit(seconds: 2)
        // The player is gone and its death (if it died) told from its log: its folder goes now.
        Self.removeTemporaryFiles(folder)
        state.lock()
        if outcomeValue == nil { outcomeValue = outcome }
        state.broadcast()
        state.unlock()
    }

    private func waitForExit(seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// The player closed its socket: it quit as asked, on Esc or q, or it died. A death cuts the
    /// item on the screen short, saying how the player ended.
    func playerClosed() {
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        let time = clock()
        let reason = process.isRunning ? "it closed its control socket and stopped answering" : exitText()
        state.lock()
        defer { state.unlock() }
        closed = true
        let quitByParticipant = !process.isRunning && process.terminationReason == .exit && process.terminationStatus == 4
        if !stopping && !quitByParticipant && !(tracker?.ended == true && settings.items.count == (tracker?.presentation.index ?? -2) + 1) {
            deathReason = reason
            endCurrent(at: time, ending: .cutShort(reason: "the stimulus player died: \(reason)"))
        } else if quitByParticipant {
            endCurrent(at: time, ending: PresentationTracker.ending(reason: "quit"))
        }
        if !controlThreadStarted && outcomeValue == nil {
            outcomeValue = deathReason.map { .playerDied(reason: $0) } ?? .participantQuit
            // No run will finish: the folder of a player that is gone goes now.
            if !process.isRunning { Self.removeTemporaryFiles(folder) }
        }
        state.broadcast()
    }

    /// How the player's process ended; for an exit of its own, the last error line of its log (a
    /// signal comes from outside, and the log's last error is then only a probe mpv made at its start).
    private func exitText() -> String {
        guard process.terminationReason == .exit else { return "it was killed by signal \(process.terminationStatus)" }
        let log = (try? String(contentsOfFile: folder + "/mpv.log", encoding: .utf8)) ?? ""
        let lastError = log.split(separator: "\n").last { $0.contains("][e][") || $0.contains("][f][") }
            .map { $0.split(separator: "]").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
        return "it exited with status \(process.terminationStatus)" + (lastError.map { " (its log: \($0))" } ?? "")
    }
}
