import GazeCalibration
import GazeCapture
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
}
