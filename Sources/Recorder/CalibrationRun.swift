import GazeCalibration
import GazeCapture
import GazeModel
import SessionStore

/// Where a calibration or validation run shows its targets, and what drives it from outside: the
/// screen the targets are placed on, where a target placed at a point is really shown, and the
/// hooks of `ProcedureRun` (a caller's keys and drawing). A scripted run needs only the screen.
public struct ProcedureDisplay {
    /// The screen the targets are placed on, screen points.
    public var screenWidth: Double
    public var screenHeight: Double
    /// Driven by keys: the targets are shown one after the other as keys ask, and the run ends
    /// once the procedure has finished; otherwise the targets' time windows drive it (a script).
    public var interactive: Bool
    /// Where a target placed at this point is really shown (a terminal draws it at a cell's centre).
    public var shownAt: (Point2) -> Point2
    /// Told the procedure once before the first frame (a caller's first drawing, or a note).
    public var started: (CalibrationProcedure) -> Void
    /// Acts on the procedure before each frame reaches it (a caller's keys).
    public var beforeFrame: (inout CalibrationProcedure) -> Void
    /// Sees the procedure after each frame but the last (a caller's drawing).
    public var afterFrame: (CalibrationProcedure) -> Void

    public init(screenWidth: Double, screenHeight: Double, interactive: Bool = false,
                shownAt: @escaping (Point2) -> Point2 = { $0 },
                started: @escaping (CalibrationProcedure) -> Void = { _ in },
                beforeFrame: @escaping (inout CalibrationProcedure) -> Void = { _ in },
                afterFrame: @escaping (CalibrationProcedure) -> Void = { _ in }) {
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.interactive = interactive
        self.shownAt = shownAt
        self.started = started
        self.beforeFrame = beforeFrame
        self.afterFrame = afterFrame
    }

    /// `targets` where they are really shown.
    func shown(_ targets: [CalibrationTarget]) -> [CalibrationTarget] {
        targets.map { CalibrationTarget(kind: $0.kind, position: shownAt($0.position), startSeconds: $0.startSeconds,
                                        endSeconds: $0.endSeconds) }
    }

    /// Runs the procedure through `run` with these hooks.
    func run(_ procedure: CalibrationProcedure, through run: ProcedureRun) throws -> (CalibrationProcedure, ProcedureRun.Ending) {
        started(procedure)
        let (result, ending) = try run.run(procedure, untilFinished: interactive, beforeFrame: beforeFrame,
                                           afterFrame: afterFrame)
        return (result, ending)
    }
}

/// The timing and sample rules of each target of a calibration or validation run.
public struct ProcedureSettings: Sendable {
    /// Seconds after a target appears before samples are collected (nil: the script's, else
    /// `CalibrationProcedure.defaultSettleSeconds`).
    public var settleSeconds: Double?
    /// Seconds of samples collected per target, when keys drive the run.
    public var collectSeconds: Double
    /// Usable samples a target needs (when calibrating, after outliers are dropped).
    public var minimumSamplesPerPoint: Int
    /// The screen's size and the eyes' distance from it, for accuracy in degrees (validation: nil
    /// keeps the calibration's).
    public var viewing: ViewingDistances?

    public init(settleSeconds: Double? = nil, collectSeconds: Double = CalibrationProcedure.defaultCollectSeconds,
                minimumSamplesPerPoint: Int = CalibrationFitter.Configuration().minimumSamplesPerPoint,
                viewing: ViewingDistances? = nil) {
        self.settleSeconds = settleSeconds
        self.collectSeconds = collectSeconds
        self.minimumSamplesPerPoint = minimumSamplesPerPoint
        self.viewing = viewing
    }

    /// The settle time: given, else the script's, else the procedure's default.
    func settle(_ script: CalibrationScript?) -> Double {
        settleSeconds ?? script?.settleSeconds ?? CalibrationProcedure.defaultSettleSeconds
    }

    func geometry(_ display: ProcedureDisplay) -> ScreenGeometry? {
        viewing?.geometry(widthPoints: display.screenWidth, heightPoints: display.screenHeight)
    }
}

/// What a calibration or validation run gives: its result once the procedure finished, else how
/// it ended without one (never `.finished`).
public enum ProcedureOutcome<Result> {
    case finished(Result)
    case ended(ProcedureRun.Ending)
}

/// A calibration, from targets to the saved record: the targets (a built-in layout or a script)
/// placed on the display's screen, the source's frames through `ProcedureRun`, and, once the
/// procedure has finished, its `CalibrationRecord` saved in the store.
public struct CalibrationRun {
    /// Where the targets come from.
    public enum Targets {
        /// A built-in layout's calibration and validation targets, shown as keys ask.
        case layout(CalibrationLayout)
        /// A script's targets and time windows.
        case script(CalibrationScript)
    }

    public let run: ProcedureRun
    public let database: SessionDatabase

    public init(vision: VisionInput, stop: StopRequest, database: SessionDatabase) {
        run = ProcedureRun(vision: vision, stop: stop)
        self.database = database
    }

    /// Runs the calibration on `display` and saves it under `name`; `focalLengthPixels` is the focal
    /// length given for head pose (nil: the frame width), which the record keeps.
    public func run(_ targets: Targets, settings: ProcedureSettings, display: ProcedureDisplay, name: String?,
                    focalLengthPixels: Double?) throws -> ProcedureOutcome<CalibrationRecord> {
        let geometry = settings.geometry(display)
        let placed: [CalibrationTarget], script: CalibrationScript?
        switch targets {
        case .layout(let layout):
            placed = display.shown(CalibrationProcedure.layoutTargets(layout, width: display.screenWidth,
                                                                      height: display.screenHeight))
            script = nil
        case .script(let given):
            placed = given.targets(width: display.screenWidth, height: display.screenHeight)
            script = given
        }
        let start = CalibrationProcedure(targets: placed, scripted: script != nil, settleSeconds: settings.settle(script),
                                         collectSeconds: settings.collectSeconds,
                                         fitter: CalibrationFitter(minimumSamplesPerPoint: settings.minimumSamplesPerPoint),
                                         geometry: geometry)
        let (procedure, ending) = try display.run(start, through: run)
        guard ending == .finished, let outcome = procedure.outcome else { return .ended(ending) }
        let input = run.vision.opened, frames = run.vision.frames
        let record = CalibrationRecord(
            name: name, createdAtSeconds: SystemClock.unixTime(), screenWidth: display.screenWidth,
            screenHeight: display.screenHeight, geometry: geometry, sourceKind: input.kind.rawValue,
            sourceName: input.path, sourceWidth: frames.width, sourceHeight: frames.height,
            focalLengthPixels: focalLengthPixels, procedure: procedure, outcome: outcome,
            gazerecVersion: GazerecVersion.current)
        try database.save(record)
        return .finished(record)
    }
}

/// A validation of a stored calibration: validation targets only (the centre and four at 30 %/70 %,
/// or a script's), the frames mapped with the calibration's mapping, nothing refitted or saved.
public struct ValidationRun {
    public let run: ProcedureRun

    public init(vision: VisionInput, stop: StopRequest) {
        run = ProcedureRun(vision: vision, stop: stop)
    }

    /// The five built-in validation targets, as fractions of the screen: the centre first.
    public static let targetFractions = [Point2(0.5, 0.5)] + CalibrationLayout.nine.validationFractions

    /// Validates `calibration` on `display` with the script's targets, else the built-in five. The
    /// viewing distances of `settings`, else the calibration's geometry, give degrees.
    public func run(_ calibration: CalibrationRecord, script: CalibrationScript?, settings: ProcedureSettings,
                    display: ProcedureDisplay) throws -> ProcedureOutcome<ValidationReport> {
        let width = display.screenWidth, height = display.screenHeight
        let targets = script?.targets(width: width, height: height)
            ?? display.shown(Self.targetFractions.map {
                CalibrationTarget(kind: .validation, position: Point2($0.x * width, $0.y * height))
            })
        let geometry = settings.geometry(display) ?? calibration.geometry
        // A script's windows say how long each target collects; keys need the collect time.
        let start = script != nil
            ? CalibrationProcedure(validating: calibration.mapping, targets: targets, scripted: true,
                                   settleSeconds: settings.settle(script),
                                   minimumSamplesPerPoint: settings.minimumSamplesPerPoint, geometry: geometry)
            : CalibrationProcedure(validating: calibration.mapping, targets: targets, scripted: false,
                                   settleSeconds: settings.settle(nil), collectSeconds: settings.collectSeconds,
                                   minimumSamplesPerPoint: settings.minimumSamplesPerPoint, geometry: geometry)
        let (procedure, ending) = try display.run(start, through: run)
        guard ending == .finished, let report = procedure.validation else { return .ended(ending) }
        return .finished(report)
    }
}
