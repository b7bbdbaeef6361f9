import Foundation
import FaceExpression
import GazeCalibration
import GazeCapture
import GazeModel
import GazeVision
import JSONStream
import LabServer
import Recorder
import SessionFigures
import SessionReview
import SessionStore
import StimulusAnalysis
import StimulusStudy
import StimulusPresenter

/// What to do about a library error, in the command line's terms.
///
/// Libraries report what went wrong as data and sentences about it; only the CLI knows its flags
/// and subcommands, so the hint naming them is added here: after the library's sentence, or, where
/// it belongs inside the sentence, in the whole message said again.
enum ErrorHints {
    /// The error's sentence with the CLI's hint, if there is one.
    static func message(for error: any Error) -> String {
        if let whole = rewording(of: error) { return whole }
        guard let hint = hint(for: error) ?? fileTooLarge(error) else { return "\(error)" }
        return "\(error) " + hint
    }

    /// A write that failed with EFBIG ("File too large"): gazerec ignores SIGXFSZ, so the
    /// file-size limit is an error like a full disk (the command removed its temporary files).
    static func fileTooLarge(_ error: any Error) -> String? {
        guard "\(error)".contains(String(cString: strerror(EFBIG))) else { return nil }
        return "The file would pass this process's file-size limit (ulimit -f) or the largest file its file system holds; "
            + "nothing of it was kept. Raise the limit, or write it elsewhere."
    }

    static func hint(for error: Any) -> String? {
        if let hint = stimulusHint(for: error) { return hint }
        switch error {
        case StoreError.unknownSession(let id, _) where id.count < 4:
            return "A prefix of a session id names one only with at least 4 characters; list the stored sessions with 'gazerec list'."
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
        case StoreError.notSessionDatabase:
            return "Check the path given by --database or GAZEREC_DATABASE."
        case StoreError.damagedSession:
            return "'gazerec check' lists every damaged session of the database."
        case StoreError.ambiguousCalibration:
            return "See the ids with 'gazerec calibrations list'."
        case StoreError.database(let action, _, _) where action == SessionDatabase.openAction:
            return "Check the path given by --database or GAZEREC_DATABASE."
        case CaptureError.noSuchDevice:
            return "Use --input FILE to analyse a video, or list cameras with 'gazerec devices'."
        case CaptureError.notACaptureDevice:
            return "List cameras with 'gazerec devices'."
        case CaptureError.unsupportedFormat:
            return "List its formats with 'gazerec devices'."
        case CaptureError.unknownControl:
            return "See them with their ranges in 'gazerec devices'."
        case CaptureError.badControl:
            return "See its controls in 'gazerec devices'."
        case is CalibrationDocumentError:
            return "Calibration files are written by 'gazerec calibrations export'; see docs/Calibration.md."
        case ExpressionError.runtimeUnavailable, ExpressionError.modelUnavailable:
            return "Or leave out --expressions to go on without expression probabilities."
        case VisionError.modelMissing:
            return "Install it with 'apt-get install libdlib-data', or give its path with --model or GAZEREC_MODEL."
        case LabServerError.noSchema, LabServerError.olderSchema:
            return "The lab's admin runs 'gazerec lab init --server ADMIN_URL'."
        case let LabServerError.withdrawn(kind, id, _):
            return "Delete this station's copy: " + (kind == "session" ? "'gazerec delete \(id)'" : "'gazerec calibrations delete \(id)'")
                + ", or every copy of the participant with 'gazerec delete --app-id LABEL'."
        case LabServerError.roleTaken:
            return "Run 'gazerec lab list-stations --server ADMIN_URL' to see the names in use."
        case CalibrationChoiceError.otherHeadPoseModel, VisionError.headPoseModelUnknown:
            return "Or record without gaze: --calibration none."
        case VisionError.modelUnreadable:
            return "Reinstall it with 'apt-get install --reinstall libdlib-data' or give another with --model."
        case RecorderError.alreadyRecording:
            return "Stop it with 'gazerec stop' (one recording at a time per database)."
        case RecorderError.labStreamingUnavailable:
            return "Or record without --lsl and --markers-from lsl."
        case ReanalysisError.noVideo:
            return "Record with the video kept: 'gazerec start --save-video'."
        default:
            return nil
        }
    }

    /// What to type after a stimulus study's error, nil for other errors.
    private static func stimulusHint(for error: Any) -> String? {
        switch error {
        case StimulusStudyError.imageHasNoClips:
            return "Leave out --render, or give the video that was shown as --stimulus."
        case StimulusStudyError.notPresented:
            return "Give it with --rect X,Y,W,H (and --start LABEL), or the file the sessions presented as --stimulus."
        case StimulusStudyError.severalShowings:
            return "Choose one with --showing N."
        case PresenterError.noSuchScreen:
            return "Give --present-screen a screen of it, or leave it out."

        default:
            return nil
        }
    }

    /// The whole message, for errors whose hint stands inside the library's sentence.
    private static func rewording(of error: Any) -> String? {
        switch error {
        case CalibrationChoiceError.otherScreen:
            return "--screen: \(error) Calibrate on this screen, or leave out --screen."
        case CalibrationChoiceError.otherFocalLength:
            return "--focal-length: \(error) Leave out --focal-length (the calibration's is used), or calibrate with this one."
        case let RecorderError.stopTimedOut(id, pid, seconds):
            return "recorder \(pid) did not close session \(id) within \(Int(seconds)) s. It may still be flushing; "
                + "check 'gazerec status', or stop it with kill \(pid) (the session can be closed later by 'gazerec repair')."
        case let RecorderError.recordingInProgress(action, id, pid, path):
            return "cannot \(action): session \(id) is being recorded into \(path) by process \(pid). "
                + "Stop it first with 'gazerec stop'; nothing was deleted."
        case let ReanalysisError.stillRecording(id):
            return "session \(id) is still being recorded (or its recorder died: 'gazerec repair' closes it). "
                + "Re-analyse it once it has ended."
        case let ScanPathError.noGaze(id):
            return "\(error) Map a recorded session's stored eye features with 'gazerec recalibrate \(id) --calibration ID'."
        case let SessionPlotError.notAnImage(path):
            return "--background \(path) is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise). "
                + "Give the stimulus as an image file."
        case let ScanPathError.noInterval(id, labels, known) where known.isEmpty:
            return "session \(id) has no marker interval from '\(labels[0])'"
                + (labels.count > 1 ? " to a later '\(labels[1])'" : "") + "; its markers are none ('gazerec mark' adds them while recording)."
        case let RecalibrationError.stillRecording(id):
            return "session \(id) is still being recorded (or its recorder died: 'gazerec repair' closes it). "
                + "Recalibrate it once it has ended."
        default:
            return nil
        }
    }
}

/// A stored calibration that does not fit the run (another screen or focal length: the user's
/// input to fix; another face model: a runtime failure).
extension CalibrationChoiceError: RuntimeFailure {}

/// A session without gaze, or without the marker interval asked for, given to a command that reads gaze.
extension ScanPathError: RuntimeFailure {}

/// A figure's background that is not an image (the user's input to fix).
extension SessionPlotError: RuntimeFailure {}
