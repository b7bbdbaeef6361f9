import ArgumentParser
import GazeCalibration
import GazeCore
import GazeModel
import JSONStream
import Recorder

/// Options shared by `calibrate` and `validate`: the viewing geometry for degrees, the script,
/// and the timing and sample rules of each target.
struct ProcedureOptions: ParsableArguments {
    @Option(name: .customLong("screen-size-mm"),
            help: ArgumentHelp("Visible screen area in millimetres, for accuracy in degrees (validate: default the "
                               + "calibration's).", valueName: "WxH"), transform: MillimetreSize.parse)
    var screenSizeMillimetres: MillimetreSize?

    @Option(name: .customLong("distance-mm"),
            parsing: .unconditional, help: ArgumentHelp("Eye-to-screen distance in millimetres, for accuracy in degrees (validate: default the "
                               + "calibration's).", valueName: "mm"))
    var distanceMillimetres: Double?

    @Option(help: ArgumentHelp("Run without keys from this target schedule ('-' reads stdin; docs/Calibration.md).",
                               valueName: "file"))
    var script: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds after a target appears before samples are collected (default "
                               + "\(CalibrationProcedure.defaultSettleSeconds), or the "
                               + "script's 'settle' line).", valueName: "seconds"))
    var settle: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds of samples to collect per target (interactive).", valueName: "seconds"))
    var collect: Double = ProcedureSettings().collectSeconds

    @Option(parsing: .unconditional, help: ArgumentHelp("Usable samples a target needs (when calibrating, after outliers are dropped).",
                               valueName: "n"))
    var minimumSamples: Int = ProcedureSettings().minimumSamplesPerPoint

    func validate() throws {
        if (screenSizeMillimetres == nil) != (distanceMillimetres == nil) {
            throw ValidationError("Give --screen-size-mm and --distance-mm together (both are needed for degrees).")
        }
        if let distanceMillimetres, !(distanceMillimetres > 0 && distanceMillimetres.isFinite) {
            throw ValidationError("--distance-mm must be a positive number of millimetres.")
        }
        if let settle, !(settle >= 0 && settle.isFinite) { throw ValidationError("--settle must be a number of seconds ≥ 0.") }
        if !(collect > 0 && collect.isFinite) { throw ValidationError("--collect must be a positive number of seconds.") }
        if minimumSamples < 1 { throw ValidationError("--minimum-samples must be at least 1.") }
    }

    /// The screen's size and the eyes' distance from it, from --screen-size-mm and --distance-mm.
    var viewing: ViewingDistances? {
        guard let size = screenSizeMillimetres, let distanceMillimetres else { return nil }
        return ViewingDistances(screenWidthMillimetres: size.width, screenHeightMillimetres: size.height,
                                distanceMillimetres: distanceMillimetres)
    }

    /// Each target's timing and sample rules, and the viewing distances.
    var settings: ProcedureSettings {
        ProcedureSettings(settleSeconds: settle, collectSeconds: collect, minimumSamplesPerPoint: minimumSamples,
                          viewing: viewing)
    }
}
