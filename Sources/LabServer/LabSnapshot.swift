import Foundation
import JSONStream
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
                try SessionDatabase.createFolder(outputDirectory)
                for id in selected {
                    try SessionDatabase.writeAtomically(to: (outputDirectory as NSString).appendingPathComponent("\(id).json")) {
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
