import GazeCalibration
import JSONStream

extension SessionDatabase {
    /// Saves a new calibration: its document, and the columns listing and choosing need.
    public func save(_ record: CalibrationRecord) throws {
        try saveCalibrations([record], replace: false, source: "calibration \(record.id)")
    }

    /// Saves calibrations in one transaction, refusing (or with `replace` overwriting) one already
    /// stored; `source` names them in errors.
    public func saveCalibrations(_ records: [CalibrationRecord], replace: Bool, source: String) throws {
        try saveCalibrations(records.map { ($0.summary, try $0.document()) }, replace: replace, source: source)
    }

    /// Reads and decodes one calibration (`latest` for the newest).
    public func calibrationRecord(id: String) throws -> CalibrationRecord {
        let (summary, document) = try calibration(id: id)
        return try CalibrationRecord(document: Array(document.utf8), source: "stored calibration \(summary.id)")
    }

    /// Imports calibration documents another store holds (a lab server's), keeping those already
    /// here; `source` names the documents in errors.
    public func importCalibrations(documents: [[UInt8]], source: String) throws {
        let records = try documents.map { try CalibrationRecord(value: try JSONValue.parse($0, name: source), source: source) }
        if !records.isEmpty { try saveCalibrations(records, replace: false, source: source) }
    }
}

extension CalibrationRecord {
    /// What the database lists about it.
    public var summary: CalibrationSummary {
        CalibrationSummary(id: id, name: name, createdAtSeconds: createdAtSeconds, screenWidth: screenWidth,
                           screenHeight: screenHeight, pointCount: calibrationPointCount,
                           accuracyPoints: validation?.accuracyPoints, accuracyDegrees: validation?.accuracyDegrees)
    }
}
