import FaceExpression
import Foundation
import GazeCalibration
import GazeCapture
import GazeVision
import JSONStream
import LabServer
import Recorder
import SessionFigures
import SessionReview
import SessionStore
import StimulusAnalysis
import StimulusPresenter
import StimulusStudy

/// gazerec's exit status, one rule for every command (README, "Exit status"), after sysexits(3).
///
/// What the user named (a file, a folder, the database, a camera, a session or calibration id) is
/// an *input*. An input that is not there or cannot be read is 66 whatever the command; one that
/// was read but is not what the command takes is 65; a command line that is wrong in itself is 64;
/// every other failure (a device, a full disk, a lab server out of reach, damage found in the store,
/// a conflict with what is stored) is 1. Commands throw their errors; only this type chooses the status.
enum ExitStatus: Int32 {
    /// Every other failure.
    case failure = 1
    /// EX_USAGE: an unknown command or option, a value of the wrong form or out of range, options
    /// that conflict or are missing, or a run this place cannot give (no terminal, no display, no mpv).
    case usage = 64
    /// EX_DATAERR: a named input was read, and its content is not what the command takes.
    case dataError = 65
    /// EX_NOINPUT: a named input does not exist or cannot be read — a file, a folder, the
    /// database, a camera, or a session or calibration id that names nothing stored.
    case noInput = 66

    /// The status of a command that failed with `error`.
    static func of(_ error: any Error) -> ExitStatus {
        if error is UsageError { return .usage }
        if let error = error as? InputFailure { return error.missing ? .noInput : .dataError }
        if let error = error as? DetachedStartFailure { return ExitStatus(rawValue: error.childStatus) ?? .failure }
        return store(error) ?? capture(error) ?? stimulus(error) ?? other(error) ?? .failure
    }

    /// 66 when `path` names nothing this process can read (as a file, or as a folder when `folder`
    /// is true), else `status`: for errors that say a named file could not be used, without saying why.
    static func unlessReadable(_ path: String, folder: Bool = false, else status: ExitStatus) -> ExitStatus {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue == folder,
              access(path, R_OK) == 0 else { return .noInput }
        return status
    }

    /// The database, stored ids and JSON files.
    private static func store(_ error: any Error) -> ExitStatus? {
        switch error {
        case StoreError.noDatabase, StoreError.unknownSession, StoreError.unknownCalibration, StoreError.noSessionsWithAppID,
             LabServerError.unknownToErase, LabServerError.noSessionsWithAppID:
            return .noInput
        case let StoreError.notSessionDatabase(path, _):
            return unlessReadable(path, else: .dataError)
        case let StoreError.database(action, path, reason) where action == SessionDatabase.openAction:
            // The file is there (a writer creates a missing one): a folder or an unreadable file, or not SQLite.
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return .failure }
            if isFolder.boolValue || access(path, R_OK) != 0 { return .noInput }
            return reason.contains("not a database") ? .dataError : .failure
        case StoreError.invalidJSON, StoreError.duplicateInImport, JSONError.invalid, is CalibrationDocumentError:
            return .dataError
        case StoreError.io(let action, _, _) where action == "read":
            return .noInput
        case JSONError.io(let action, _, _) where action == "read":
            return .noInput
        default:
            return nil
        }
    }

    /// Videos, cameras, models and calibration scripts.
    private static func capture(_ error: any Error) -> ExitStatus? {
        switch error {
        case let CaptureError.cannotOpenVideo(path, _):
            return unlessReadable(path, else: .dataError)
        case CaptureError.decodingFailed, CaptureError.notACaptureDevice:
            return .dataError
        case CaptureError.noSuchDevice, CaptureError.permissionDenied, VisionError.modelMissing, VisionError.detectorModelMissing:
            return .noInput
        case let VisionError.modelUnreadable(path, _), let VisionError.detectorModelUnreadable(path, _),
             let ExpressionError.modelUnavailable(path, _):
            // Models are data the user may name (--model, GAZEREC_MODEL, GAZEREC_EXPRESSION_MODEL);
            // a library (ONNX Runtime, liblsl) that will not load is the system's failure, 1.
            return unlessReadable(path, else: .dataError)
        case let error as CalibrationScript.ParseError:
            return error.file == "<stdin>" ? .dataError : unlessReadable(error.file, else: .dataError)
        default:
            return nil
        }
    }

    /// Stimuli, areas of interest, participants, playlists and figures' backgrounds.
    private static func stimulus(_ error: any Error) -> ExitStatus? {
        switch error {
        case let StimulusStudyError.cannotReadStimulus(path, _), let StimulusStudyError.cannotReadAOIs(path, _),
             let StimulusStudyError.cannotReadParticipants(path, _), let PresenterError.unreadableItem(path, _),
             let PresenterError.unplayableItem(path, _):
            return unlessReadable(path, else: .dataError)
        case StimulusError.badAOIs, PresenterError.emptyPlaylist, PresenterError.badPlaylistLine,
             SessionPlotError.notAnImage:
            return .dataError
        case ReviewError.notAFolder:
            return .noInput
        case StimulusError.badRectangle, StimulusError.aspectMismatch, StimulusError.badParameter,
             StimulusStudyError.imageHasNoClips, StimulusStudyError.unknownVideoKind, StimulusStudyError.notPresented,
             StimulusStudyError.severalShowings:
            return .usage
        case PresenterError.noDisplay, PresenterError.displayUnavailable, PresenterError.noSuchScreen, PresenterError.playerMissing,
             PresenterError.badSeconds:
            return .usage
        default:
            return nil
        }
    }

    /// Usage errors that libraries find while running.
    private static func other(_ error: any Error) -> ExitStatus? {
        switch error {
        case RecalibrationError.stillRecording, RecalibrationError.noStoredFrames, LabServerError.malformedAddress,
             LabServerError.passwordInAddress,
             CalibrationChoiceError.otherScreen, CalibrationChoiceError.otherFocalLength:
            return .usage
        default:
            return nil
        }
    }
}

/// A named input the command line reads itself (a marker file, a password file) that is not
/// there or cannot be read (`missing`), or that holds what the command cannot take.
struct InputFailure: RuntimeFailure {
    let message: String
    let missing: Bool
    var description: String { message }
}
