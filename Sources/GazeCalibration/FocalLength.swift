/// The camera's focal length a run measures head poses with, the one rule of recording,
/// validation and re-analysis.
public enum FocalLength {
    /// Pixels: the one given for the run, else the one the session's frames were recorded with
    /// (re-analysing it), else the one the calibration applied was made with (its mapping was fitted
    /// on head poses measured with it); nil: the frame width, the pipeline's own estimate.
    public static func pixels(given: Double?, recorded: Double? = nil, calibration: Double?) -> Double? {
        given ?? recorded ?? calibration
    }
}
