import Foundation
import GazeCalibration
import JSONStream
import LabServer
import Recorder
import SessionStore

/// A lab server's sessions and calibrations in a scratch station database: each document is
/// imported as `gazerec import` would, so exports of it are the bytes the station exported.
///
/// Documents stream in part by part, all from one snapshot of the server, into a private
/// temporary file that SQLite deletes when the command ends: memory stays flat however many
/// hours the server holds.
enum ServerSnapshot {
    /// Which sessions a command reads: a command about given sessions reads only those (a batch
    /// script exporting one session at a time must not read the whole server each time).
    enum Sessions {
        case all
        /// Session ids or unambiguous prefixes, as a station's commands take them.
        case named([String])
        /// Calibrations only.
        case none
    }

    static func load(address: String, sessions: Sessions) throws -> SessionDatabase {
        let server = try LabDatabase(address: address)
        let database = try SessionDatabase(scratchFor: address)
        try server.reading {
            let ids: [String]
            switch sessions {
            case .all: ids = try server.sessionIDs()
            case .named(let names): ids = try server.sessionIDs(matchingPrefixes: names)
            case .none: ids = []
            }
            if !ids.isEmpty { _ = try database.importSessions(from: ids.map { server.document(sessionID: $0) }) }
            let calibrations = try server.calibrationDocuments().map { data in
                try CalibrationRecord(value: try JSONValue.parse(Array(data), name: address), source: address)
            }
            if !calibrations.isEmpty {
                try database.saveCalibrations(calibrations.map { ($0.summary, try $0.document()) }, replace: false,
                                              source: address)
            }
        }
        return database
    }

    /// `export` of stored documents as they are (`LabSnapshot.exportStored`).
    static func exportStored(address: String, ids: [String]?, outputDirectory: String?,
                             deliver: ((ByteSink) throws -> Void) throws -> Void) throws {
        let written = try LabSnapshot.exportStored(address: address, ids: ids, outputDirectory: outputDirectory,
                                                   deliver: deliver)
        ExportSelection.noteRepeated(written.repeated)
        if let outputDirectory {
            Console.note("exported \(written.sessions) session\(written.sessions == 1 ? "" : "s") to \(outputDirectory)")
        }
    }
}
