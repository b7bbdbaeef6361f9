import Foundation
import GazeCalibration
import JSONStream
import LabServer
import SessionStore

/// A lab server's sessions and calibrations in an in-memory station database: each document is
/// imported as `gazerec import` would, so exports of it are the bytes the station exported.
enum ServerSnapshot {
    static func load(address: String) throws -> SessionDatabase {
        let server = try LabServer(address: address)
        let database = try SessionDatabase()
        let documents = try server.sessionDocuments()
        if !documents.isEmpty {
            try database.importSessions(from: documents.enumerated().map { .bytes(Array($0.element), name: "server document \($0.offset)") })
        }
        let calibrations = try server.calibrationDocuments().map { data in
            try CalibrationRecord(value: try JSONValue.parse(Array(data), name: address), source: address)
        }
        if !calibrations.isEmpty {
            try database.saveCalibrations(calibrations.map { ($0.summary, try $0.document()) }, replace: false, source: address)
        }
        return database
    }
}
