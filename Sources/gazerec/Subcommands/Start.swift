import ArgumentParser
import Dispatch
import FaceExpression
import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import JSONStream
import Recorder
import SessionStore
import StimulusPresenter

extension Gazerec {
    /// `gazerec start`: record a session until stopped.
    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a session from a camera (or replay a video as one) until stopped.",
            discussion: """
                Ends on Ctrl-C, SIGTERM, 'gazerec stop', --duration, the end of an --input video, or the end \
                of the last --present item (or Esc or q in its player), then \
                prints the session id on stdout. Samples are committed every 250 ms as they come, so a \
                crash loses at most that much; 'gazerec repair' (or the next start or list) closes a \
                session whose recorder died. Gaze (the scanPath) comes from a calibration ('gazerec \
                calibrate'; the newest for the screen is applied); blend shapes, per-frame eye features, \
                head pose and blinks are recorded either way (under "gazerec" on export), so \
                'gazerec recalibrate' can map gaze later.
                """)

        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("Camera device (default /dev/video0).", valueName: "path"))
        var device: String?

        @Option(help: ArgumentHelp("Replay this video as if it were a camera, at its own pace.", valueName: "video"))
        var input: String?

        @Flag(help: "With --input, process the video as fast as possible instead of at its own pace.")
        var asFastAsPossible = false

        @Option(help: "Frame rate to request from the camera (default 30). A video given with --input plays at its own rate.")
        var fps: FrameRate?

        @Option(help: ArgumentHelp("Camera frame size (WxH, default 640x480).", valueName: "WxH"))
        var resolution: Size2D?

        @Option(name: .customLong("camera-control"),
                help: ArgumentHelp("Set a camera control when it opens, NAME=VALUE as 'gazerec devices' lists them "
                                   + "(repeatable, set in order; recorded with the session), e.g. exposure_auto=1 to "
                                   + "stop auto-exposure hunting.", valueName: "name=value"))
        var cameraControls: [CameraControlSetting] = []

        @Option(help: ArgumentHelp("The study or application identifier stored as appID.", valueName: "id"))
        var appID: String = "gazerec"

        @Option(help: ArgumentHelp("Blend shapes to record, comma-separated (default eyeBlink_L,eyeBlink_R). "
                                   + "Supported: \(BlendShapeName.allCases.map(\.rawValue).joined(separator: ", ")).",
                                   valueName: "names"))
        var blendShapes: String?

        @Option(help: ArgumentHelp("Calibration to map eye features to gaze: an id, 'latest' (the default: the newest "
                                   + "for this screen, if any) or 'none'. Without one no scanPath is recorded.", valueName: "id"))
        var calibration: String = "latest"

        @Option(help: ArgumentHelp("Screen size in screen points stored as deviceInfo.screenSize (default: the applied "
                                   + "calibration's screen, else \(Int(RecordingSetup.defaultScreen.width))x"
                                   + "\(Int(RecordingSetup.defaultScreen.height))).",
                                   valueName: "WxH"))
        var screen: Size2D?

        @Option(help: "Interface orientation stored with every sample.")
        var orientation: Orientation = .landscapeRight

        @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
        var duration: Double?

        @Option(help: ArgumentHelp("Write each sample to stdout as it is produced: 'ndjson' (one JSON object a line, "
                                   + "flushed per line). A closed pipe stops the stream, not the recording.", valueName: "format"))
        var stream: StreamFormat?

        @Flag(help: "Return as soon as recording has started (the id is printed then); the recorder runs on in the background.")
        var detach = false

        @Flag(help: "Show the live gaze point on the terminal while recording (q, Esc or Ctrl-C stops).")
        var preview = false

        @Option(help: ArgumentHelp("Read event markers while recording, one 'LABEL' (or 'LABEL<tab>JSON') a line, from "
                                   + "this file (a named pipe, or a log followed from its end as it grows) or '-' for "
                                   + "stdin, each stamped when its line arrives, as 'gazerec mark' would; or take them "
                                   + "from another program's LSL marker stream: 'lsl' (any stream of type Markers but gazerec's own) or "
                                   + "'lsl:PREDICATE' (e.g. lsl:name='PsychoPyMarkers'), each at its LSL time.",
                                   valueName: "file|lsl[:predicate]"))
        var markersFrom: String?

        @Flag(help: ArgumentHelp("Publish the gaze (a sample per analysed frame, at its capture time) and every marker "
                                 + "as Lab Streaming Layer streams gazerec-gaze and gazerec-markers, for LabRecorder "
                                 + "(docs/Lab.md)."))
        var lsl = false

        @Option(parsing: .unconditional, help: ArgumentHelp("With --lsl, wait up to this long before recording for a client (LabRecorder) to "
                                   + "subscribe to the gaze stream, so it receives every frame.", valueName: "seconds"))
        var lslWait: Double?

        @Option(defaultAsFlag: "", parsing: .next, help: ArgumentHelp("Keep the frames as analysed (gray, lossless FFV1 in Matroska, each at its time) so "
                                   + "'gazerec reanalyze' can run a later pipeline over them: into this .mkv file, or, "
                                   + "given no path, <database folder>/videos/<session id>.mkv. Written on its own thread.",
                                   valueName: "path"))
        var saveVideo: String? = nil

        @OptionGroup var smoothingOptions: SmoothingOptions

        @OptionGroup var vision: VisionOptions

        @OptionGroup var picture: PictureOptions

        @OptionGroup var expressionOptions: ExpressionOptions

        @OptionGroup(title: "Presenting a stimulus") var presentation: PresentOptions

        @Option(parsing: .unconditional, help: .hidden)
        var notifyFd: Int32?

        func validate() throws {
            if device != nil && input != nil { throw ValidationError("Use either --device or --input, not both.") }
            if stream != nil && detach { throw ValidationError("--stream writes to this process's stdout; it cannot be used with --detach.") }
            if preview && (detach || stream != nil) {
                throw ValidationError("--preview draws on this terminal; it cannot be used with --detach or --stream.")
            }
            if input != nil && !cameraControls.isEmpty {
                throw ValidationError("--camera-control sets a camera's controls; a video given with --input has none.")
            }
            if asFastAsPossible && input == nil { throw ValidationError("--as-fast-as-possible applies to --input only.") }
            if let fps, input != nil {
                throw ValidationError("--fps \(fps.rawValue) requests a camera's rate; a video given with --input plays at the "
                                      + "rate it was recorded at. Leave out --fps.")
            }
            if lslWait != nil && !lsl { throw ValidationError("--lsl-wait waits for a client of the --lsl streams; add --lsl.") }
            if let lslWait, !(lslWait > 0 && lslWait.isFinite) {
                throw ValidationError("--lsl-wait must be a positive number of seconds.")
            }
            if markersFrom == "-" && (detach || preview) {
                throw ValidationError("--markers-from - reads this process's stdin; a \(detach ? "background recorder has none" : "--preview reads its keys there"). Give a named pipe (mkfifo) or a file instead.")
            }
            if let saveVideo, !saveVideo.isEmpty {
                guard saveVideo.lowercased().hasSuffix(".mkv") else {
                    throw ValidationError("--save-video \(saveVideo): the video is Matroska; give a file name ending in .mkv.")
                }
                if FileManager.default.fileExists(atPath: saveVideo) {
                    throw ValidationError("--save-video \(saveVideo): the file exists, and a recording never overwrites one. "
                                          + "Give a new name, or --save-video alone for one named after the session.")
                }
            }
            if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds.") }
            if appID.isEmpty { throw ValidationError("--app-id must not be empty.") }
            try LabelArgument.check(appID, as: "--app-id")
            _ = try parsedBlendShapes()
            try vision.validate()
        }

        func parsedBlendShapes() throws -> [BlendShapeName] {
            guard let blendShapes else { return BlendShapeName.defaultSet }
            var names: [BlendShapeName] = []
            for part in blendShapes.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
                guard let name = BlendShapeName(rawValue: part) else {
                    throw ValidationError("Unknown or unsupported blend shape '\(part)'. Supported: "
                                          + BlendShapeName.allCases.map(\.rawValue).joined(separator: ", ") + ".")
                }
                if !names.contains(name) { names.append(name) }
            }
            return names
        }

        /// The LSL predicate `--markers-from lsl[:PREDICATE]` gives, nil for a file or stdin.
        var markerPredicate: String? { markersFrom.flatMap(LabStreamingRequest.markerPredicate(source:)) }

        /// What `--lsl` and `--markers-from lsl` ask of LSL (liblsl loaded), nil when neither is given.
        private func labStreamingRequest() throws -> LabStreamingRequest? {
            guard lsl || markerPredicate != nil else { return nil }
            var request = try LabStreamingRequest(publish: lsl, markerPredicate: markerPredicate)
            request.clientWaitSeconds = lslWait ?? 0
            request.warning = { Console.note("warning: " + $0) }
            return request
        }

        func run() throws {
            // The marker file or pipe is read by the recorder: one that is not there fails before it starts.
            if let markersFrom, markersFrom != "-", markerPredicate == nil, access(markersFrom, R_OK) != 0 {
                throw InputFailure(message: "--markers-from \(markersFrom): \(String(cString: strerror(errno))). Give a file or a named pipe (mkfifo) you can read, '-' for stdin, or lsl[:PREDICATE] for an LSL marker stream.", missing: true)
            }
            // A missing runtime or model stops here, before a background recorder or a session starts.
            let expressions = try expressionOptions.checkedFiles()
            // Without liblsl, say so before anything starts (a background recorder too).
            let labStreaming = try labStreamingRequest()
            // A missing or unplayable item, no display or no mpv: told before anything is recorded.
            let presenting = try presentation.settings()
            if detach { return try runDetached() }
            if preview && !TerminalScreen.available {
                throw UsageError(message: "--preview draws on a terminal, but stdin is not one. "
                                 + "Leave out --preview, or use --stream ndjson to follow the gaze from a program.")
            }
            var configuration = try recordingConfiguration(expressions: expressions)
            configuration.labStreaming = labStreaming
            configuration.presentation = presenting
            if let lslWait {
                Console.note("waiting up to \(lslWait == lslWait.rounded() ? String(Int(lslWait)) : String(lslWait)) s for an "
                             + "LSL client (LabRecorder) to subscribe to gazerec-gaze")
            }
            let stop = StopRequest()
            let signals = SignalHandling(stop: stop)
            defer { signals.restore() }
            let result = try record(RecordingRun(configuration: configuration, stop: stop))
            report(result, calibrated: configuration.calibration != nil)
            if !result.logFolded { Console.note("warning: " + UnfoldedLog.text(databasePath: configuration.databasePath)) }
            if let failure = result.failure {
                let message = ErrorHints.message(for: failure)
                Console.error(message + " " + (result.closed
                    ? "Session \(result.sessionID) was closed with what was captured."
                    : "Session \(result.sessionID) keeps every sample committed before this; 'gazerec repair' closes it."))
                throw ExitCode.failure
            }
        }

        /// What the options ask to record: the source, the calibration and its screen, video and markers.
        private func recordingConfiguration(expressions: ExpressionModelFiles?) throws -> RecordingConfiguration {
            let databasePath = store.resolvedPath
            try vision.checkModelExists()
            let source = FrameSourceRequest.cameraOrFile(
                file: input, device: device, width: resolution?.width, height: resolution?.height,
                framesPerSecond: (fps ?? .thirty).rawValue, controls: cameraControls,
                pacing: asFastAsPossible ? .asFastAsPossible : .ownPace, mirror: picture.mirror,
                rotation: picture.rotate)
            var setup = RecordingSetup(source: source, databasePath: databasePath,
                                       modelPath: LandmarkModel.resolvePath(vision.model), appID: appID)
            setup.blendShapes = try parsedBlendShapes()
            setup.calibration = CalibrationRequest(calibration)
            setup.screen = screen.map { .init(width: Double($0.width), height: Double($0.height)) }
            setup.orientation = orientation.rawNumber
            setup.maximumDurationSeconds = duration
            setup.focalLengthPixels = vision.focalLength
            setup.expressions = expressions
            let plan = try setup.plan()
            var configuration = plan.configuration
            tellCalibration(plan, asked: setup.calibration)
            if plan.calibrationFlaggedPoor, let record = plan.calibration {
                // Told once the recorder holds its lock (a background recorder's log starts then) and shown
                // by status: a poor calibration makes every gaze point doubtful.
                configuration.warnings.append("calibration \(record.id)\(record.name.map { " (\($0))" } ?? "") was flagged poor "
                                              + "when it was made\(CalibrationReport.accuracyText(record)); its gaze is doubtful. "
                                              + "Calibrate again, or give --calibration none to record without gaze.")
            }
            configuration.faceFinding = try vision.faceFinding(live: input == nil)
            configuration.smoothing = smoothingOptions.resolved(fallback: .none)
            configuration.videoDestination = saveVideo.map { videoDestination($0, databasePath: databasePath) }
            if let markersFrom, markerPredicate == nil {
                configuration.markerInput = markersFrom == "-"
                    ? MarkerFeed.Input(name: "stdin", descriptor: dup(STDIN_FILENO))
                    : try MarkerFeed.Input.open(path: markersFrom)
                configuration.markerWarning = { Console.note("warning: " + $0) }
            }
            if plan.calibration == nil && configuration.smoothing != .none {
                Console.note("--smoothing applies to gaze, and no calibration is applied: nothing to smooth")
            }
            return configuration
        }

        /// Says which calibration is applied, or that none is (not in a background recorder's log).
        private func tellCalibration(_ plan: RecordingSetup.Plan, asked: CalibrationRequest) {
            guard notifyFd == nil, asked != .none else { return }
            if let record = plan.calibration {
                Console.note("applying calibration \(record.id)\(CalibrationReport.accuracyText(record))")
            } else {
                Console.note("no calibration\(screen.map { " for a \($0.width)x\($0.height) screen" } ?? ""): recording eye "
                             + "features, blend shapes and head pose without gaze (scanPath); run 'gazerec calibrate' first")
            }
        }

        /// `--save-video PATH` (relative to here), or, given no path, the `videos` folder beside the database.
        private func videoDestination(_ saveVideo: String, databasePath: String) -> VideoDestination {
            guard !saveVideo.isEmpty else { return .folder(SessionDatabase.defaultVideoFolder(databasePath: databasePath)) }
            return .file(saveVideo.hasPrefix("/") ? saveVideo : FileManager.default.currentDirectoryPath + "/" + saveVideo)
        }

        /// Runs the recording with what this command shows of it: progress, the live preview or stream.
        private func record(_ recording: RecordingRun) throws -> RecordingResult {
            let configuration = recording.configuration
            let live: LivePreview? = preview
                ? LivePreview(stop: recording.stop, screenWidth: configuration.screenWidth,
                              screenHeight: configuration.screenHeight, calibrated: configuration.calibration != nil)
                : nil
            let terminal = Console.stderrIsTerminal && notifyFd == nil && live == nil
            let streamer: LiveStream? = stream == nil ? nil : LiveStream()
            var sampleHandler: RecordingRun.FrameObserver?
            if let streamer { sampleHandler = { streamer.write($0, $1, $2, expression: $3) } }
            if let live { sampleHandler = { frame, _, gaze, _ in live.update(frame, gaze: gaze) } }
            live?.start()
            defer { live?.finish() }
            let result = try recording.run(locked: {
                // A background recorder's log (stderr) starts afresh only now that this one records.
                if notifyFd != nil { _ = ftruncate(STDERR_FILENO, 0) }
            }, started: { id in
                announce(id, quiet: live != nil)
            }, progress: { status in
                live?.update(status)
                if terminal { Self.showProgress(status) }
            }, warning: { text in
                if terminal { Console.write("\r\u{1B}[K") }
                Console.note("warning: " + text)
            }, sample: sampleHandler)
            if terminal { Console.write("\r\u{1B}[K") }
            live?.finish()
            if let streamer {
                streamer.finish(sessionID: result.sessionID)
            } else {
                Console.output(result.sessionID + "\n")
            }
            return result
        }

        /// Tells the parent of a background recorder the session id, or says on stderr that recording runs.
        private func announce(_ id: String, quiet: Bool) {
            if let notifyFd {
                // The log names its session, so deleting the session deletes the log with it.
                Console.note("recording session \(id)\(input != nil ? " from \(input!)" : "") in the background (process \(getpid()))")
                _ = id.appending("\n").withCString { write(notifyFd, $0, strlen($0)) }
                close(notifyFd)
            } else if !quiet {
                Console.note("recording session \(id)\(input != nil ? " from \(input!)" : ""); stop with Ctrl-C or 'gazerec stop'")
            }
        }

        /// The rewritten progress line on a terminal.
        private static func showProgress(_ status: RecorderStatus) {
            let elapsed = Int(status.elapsedSeconds)
            Console.write(String(format: "\r%02d:%02d  %.1f fps  face %@  blinks %d  dropped %d ",
                                 elapsed / 60, elapsed % 60, status.achievedFramesPerSecond,
                                 status.trackingState == .frame(.missing) ? "no " : "yes", status.blinks, status.droppedFrames)
                          + "\u{1B}[K")
        }

        /// What was recorded, on stderr.
        private func report(_ result: RecordingResult, calibrated: Bool) {
            let facePercent = result.frames > 0 ? Formatting.fixed(100 * Double(result.framesWithFace) / Double(result.frames), 1) : "0"
            let gazeText = calibrated ? ", \(result.gazeSamples) gaze samples" : ""
            Console.note("processed \(result.frames) frames in \(Formatting.fixed(result.durationSeconds, 1)) s "
                         + "(face in \(facePercent) %\(gazeText), \(EyeFigures.text(result.eyes)), \(result.droppedFrames) dropped)")
            if let video = result.savedVideo {
                Console.note("video: \(video.frames) frames in \(video.path)"
                             + (video.droppedFrames > 0 ? " (\(video.droppedFrames) left out: writing fell behind)" : ""))
            }
            if let videoFailure = result.videoFailure {
                Console.note("warning: the video ended early: \(videoFailure)")
            }
            // The recording ended early but cleanly, every sample kept (exit 0): said, as in the session's endedBy.
            if let endedBy = result.endedBy, result.failure == nil {
                Console.note("the recording ended: \(endedBy); every sample so far is stored")
            }
        }

        /// Starts a copy of this command in the background and returns once it reports its session id.
        private func runDetached() throws {
            let arguments = Array(CommandLine.arguments.dropFirst()).filter { $0 != "--detach" }
            let started = try BackgroundRecorder.start(arguments: arguments, databasePath: store.resolvedPath)
            Console.output(started.sessionID + "\n")
            Console.note("recording session \(started.sessionID) in the background (process \(started.pid)); "
                         + "stop it with 'gazerec stop'. Log: \(started.logPath)")
        }
    }
}
