import GazeCalibration
import GazeCapture
import GazeModel
import GazeVision
import JSONStream
import SessionStore

/// What to do about a library error, in the command line's terms.
///
/// Libraries report what went wrong as data and sentences about it; only the CLI knows its flags,
/// so the hint naming them is added here, after the library's sentence.
enum ErrorHints {
    /// The error's sentence followed by the CLI's hint, if there is one.
    static func message(for error: any CustomStringConvertible) -> String {
        guard let hint = hint(for: error) else { return error.description }
        return error.description + " " + hint
    }

    static func hint(for error: Any) -> String? {
        switch error {
        case StoreError.unknownSession:
            return "List the stored sessions with 'gazerec list'."
        case StoreError.unknownCalibration:
            return "List the stored calibrations with 'gazerec calibrations list', or make one with 'gazerec calibrate'."
        case StoreError.sessionExists:
            return "Use --replace to overwrite it or --skip-existing to keep the stored one."
        case StoreError.calibrationExists:
            return "Use --replace to overwrite it."
        case StoreError.noDatabase:
            return "Check the path given by --database or GAZEREC_DATABASE; 'gazerec start' or 'gazerec import' creates it."
        case StoreError.database(let action, _, _) where action == SessionDatabase.openAction:
            return "Check the path given by --database or GAZEREC_DATABASE."
        case CaptureError.noSuchDevice:
            return "Use --input FILE to analyse a video, or list cameras with 'gazerec devices'."
        case VisionError.modelMissing:
            return "Install it with 'apt-get install libdlib-data', or give its path with --model or GAZEREC_MODEL."
        case VisionError.modelUnreadable:
            return "Reinstall it with 'apt-get install --reinstall libdlib-data' or give another with --model."
        default:
            return nil
        }
    }
}
