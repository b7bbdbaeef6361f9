import GazeCalibration
import GazeCapture
import SessionFigures
import SessionStore
import Testing
@testable import gazerec

/// The hints the command line adds to library errors, which name no command themselves.
@Suite("error hints")
struct ErrorHintsTests {
    @Test("a refused camera control and an unreadable calibration file get the command that helps, after the library's sentence")
    func hintsAfterSentence() {
        let control = CaptureError.badControl(path: "/dev/video7", detail: "exposure_auto cannot be set to 2: it takes 1 (Manual Mode)")
        #expect("\(control)" == "camera /dev/video7: exposure_auto cannot be set to 2: it takes 1 (Manual Mode).")
        #expect(ErrorHints.hint(for: control) == "See its controls in 'gazerec devices'.")
        let document = CalibrationDocumentError(source: "cal.json", path: "targets[3].x", reason: "not a number")
        #expect("\(document)" == "cannot read cal.json: targets[3].x: not a number.")
        #expect(ErrorHints.hint(for: document) == "Calibration files are written by 'gazerec calibrations export'; see docs/Calibration.md.")
    }

    /// The wording `fixations`, `plot` and `replay` gave when the CLI read the scan path itself.
    @Test("a session without gaze or without the marker interval asked for, and a background that is no image, are refused in the commands' old words")
    func scanPathAndFigureRefusals() {
        #expect(ErrorHints.message(for: ScanPathError.noGaze(sessionID: "ABC"))
                == "session ABC has no gaze (scanPath): it was recorded without a calibration, or imported without one. "
                + "Map a recorded session's stored eye features with 'gazerec recalibrate ABC --calibration ID'.")
        #expect(ErrorHints.message(for: ScanPathError.noGazeBetween(sessionID: "ABC", labels: ["A", "B"]))
                == "session ABC has no gaze sample between its markers 'A' and 'B' (the face was lost, or the interval is empty).")
        #expect(ErrorHints.message(for: ScanPathError.noInterval(sessionID: "ABC", labels: ["A"], known: []))
                == "session ABC has no marker interval from 'A'; its markers are none ('gazerec mark' adds them while recording).")
        #expect(ErrorHints.message(for: ScanPathError.noInterval(sessionID: "ABC", labels: ["A", "B"], known: ["x", "y"]))
                == "session ABC has no marker interval from 'A' to a later 'B'; its markers are x, y.")
        let image = SessionPlotError.notAnImage(path: "s.json")
        #expect(ErrorHints.message(for: image) == "--background s.json is not a PNG, JPEG, GIF or WebP image (its first bytes "
                + "say otherwise). Give the stimulus as an image file.")
        #expect(ExitStatus.of(image) == .dataError && ExitStatus.of(ScanPathError.noGaze(sessionID: "ABC")) == .failure)
    }
}
