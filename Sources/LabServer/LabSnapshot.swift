import Foundation
import JSONStream
import SessionExport
import SessionStore

/// A lab server's stored documents read as a station reads its own.
public enum LabSnapshot {
    /// What an export of stored documents wrote.
    public struct StoredExport: Sendable, Equatable {
        /// The sessions written.
        public var sessions: Int
        /// How many of the ids named a session already named (each is written once).
        public var repeated: Int
    }

    /// Which sessions a snapshot reads: a command about given sessions reads only those (a batch
    /// script exporting one session at a time must not read the whole server each time).
    public enum Sessions: Sendable, Equatable {
        case all
        /// Session ids or unambiguous prefixes, as a station's commands take them.
        case named([String])
        /// Calibrations only.
        case none
    }

    /// A lab server's sessions and calibrations in a scratch station database: each document is
    /// imported as a station imports a file, so exports of it are the bytes the station exported.
    ///
    /// Documents stream in part by part, all from one snapshot of the server, into a private
    /// temporary file that SQLite deletes when the process ends: memory stays flat however many
    /// hours the server holds.
    public static func load(address: String, sessions: Sessions) throws -> SessionDatabase {
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
            try database.importCalibrations(documents: try server.calibrationDocuments().map { Array($0) }, source: address)
        }
        return database
    }

    /// Stored documents as they are: the bytes each station pushed, streamed from the server
    /// without reading them into a database (compact camelCase JSON with the extension, which is
    /// what the station's export of one session wrote). `ids` nil: every session. One file per
    /// session in `outputDirectory`, else one stream handed to `deliver`.
    public static func exportStored(address: String, ids: [String]?, outputDirectory: String?,
                                    deliver: ((ByteSink) throws -> Void) throws -> Void) throws -> StoredExport {
        let server = try LabDatabase(address: address)
        return try server.reading {
            // Each session once, however often it is named (as a station's export does).
            let (selected, repeated) = try ids.map { SessionSelection.once(try server.resolveSessionIDs($0)) }
                ?? (server.sessionIDs(), 0)
            if let outputDirectory {
                try OutputFile.createFolder(outputDirectory)
                for id in selected {
                    try OutputFile.writeAtomically(to: (outputDirectory as NSString).appendingPathComponent("\(id).json")) {
                        try server.writeDocuments(sessionIDs: [id], asArray: false, to: $0)
                    }
                }
            } else {
                let asArray = ids == nil || selected.count > 1
                try deliver { try server.writeDocuments(sessionIDs: selected, asArray: asArray, to: $0) }
            }
            return StoredExport(sessions: selected.count, repeated: repeated)
        }
    }
}
