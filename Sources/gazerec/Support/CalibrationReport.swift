import GazeCalibration

/// The report printed after calibrating and by `calibrations show`.
enum CalibrationReport {
    /// A sentence when the validation says the calibration is poor (`ValidationReport.quality`).
    static func qualityWarning(_ validation: ValidationReport?, screenWidth: Double, screenHeight: Double) -> String? {
        switch validation?.quality(screenWidth: screenWidth, screenHeight: screenHeight) {
        case .targetWithoutSamples:
            return "warning: a validation target got no gaze samples; the accuracy is measured on the others only."
        case .poor:
            return "warning: the validation accuracy is poor for webcam eye tracking (usually 1–2.5°); check the light, "
                + "the camera's view of the eyes and the seating, and calibrate again before recording."
        case .acceptable, nil:
            return nil
        }
    }

    /// ` (validation accuracy 38.0 pt, 1.17°)` for a calibration with a validation, else nothing.
    static func accuracyText(_ record: CalibrationRecord) -> String {
        guard let validation = record.validation, validation.accuracyPoints.isFinite else { return "" }
        var text = " (validation accuracy \(Formatting.fixed(validation.accuracyPoints, 1)) pt"
        if let degrees = validation.accuracyDegrees { text += ", \(Formatting.fixed(degrees, 2))°" }
        return text + ")"
    }

    static func text(_ record: CalibrationRecord) -> String {
        var out = "calibration \(record.id)\(record.name.map { " (\($0))" } ?? "")  "
            + "\(Formatting.isoTime(record.createdAtSeconds))  screen \(Int(record.screenWidth))x\(Int(record.screenHeight)) pt  "
            + "\(record.mode), \(record.sourceKind) \(record.sourceName)\n"
        var rows: [[String]] = [["target", "x", "y", "collected", "used", "fit error pt"]]
        var number = 0
        for target in record.targets where target.kind == .calibration {
            number += 1
            rows.append(["\(number)", Formatting.fixed(target.position.x, 0), Formatting.fixed(target.position.y, 0),
                         "\(target.collected)", target.used.map(String.init) ?? "-",
                         target.skipped != nil ? "skipped" : target.meanErrorPoints.map { Formatting.fixed($0, 1) } ?? "-"])
        }
        out += Formatting.table(rows)
        out += skippedLines(record)
        if let report = record.validation {
            out += validationTable(report, degrees: record.geometry != nil)
            if report.accuracyPoints.isFinite { out += overall(report) + "; " }
        }
        out += "fit error between targets (cross-validated) \(Formatting.fixed(record.crossValidationErrorPoints, 1)) pt\n"
        return out
    }

    /// One warning line per calibration target the fit went on without, naming it and why.
    static func skippedLines(_ record: CalibrationRecord) -> String {
        record.targets.filter { $0.kind == .calibration }.compactMap(\.skipped)
            .map { "warning: skipped \($0)\n" }.joined()
    }

    /// One row per validation target: samples, accuracy and precision (and in degrees).
    static func validationTable(_ report: ValidationReport, degrees: Bool) -> String {
        var rows: [[String]] = [["validation", "x", "y", "samples", "accuracy pt", "precision pt"]
                                + (degrees ? ["accuracy °", "precision °"] : [])]
        for (index, result) in report.points.enumerated() {
            let measured = result.samples > 0
            rows.append(["\(index + 1)", Formatting.fixed(result.target.x, 0), Formatting.fixed(result.target.y, 0),
                         "\(result.samples)", measured ? Formatting.fixed(result.accuracyPoints, 1) : "-",
                         measured ? Formatting.fixed(result.precisionPoints, 1) : "-"]
                        + (degrees ? [result.accuracyDegrees.map { Formatting.fixed($0, 2) } ?? "-",
                                      result.precisionDegrees.map { Formatting.fixed($0, 2) } ?? "-"] : []))
        }
        return rows.count > 1 ? Formatting.table(rows) : ""
    }

    /// `accuracy 38.0 pt (1.17°), precision 9.1 pt (0.28°)`
    static func overall(_ report: ValidationReport) -> String {
        var out = "accuracy \(Formatting.fixed(report.accuracyPoints, 1)) pt"
        if let degrees = report.accuracyDegrees { out += " (\(Formatting.fixed(degrees, 2))°)" }
        out += ", precision \(Formatting.fixed(report.precisionPoints, 1)) pt"
        if let degrees = report.precisionDegrees { out += " (\(Formatting.fixed(degrees, 2))°)" }
        return out
    }
}
