import Foundation
import JSONStream
import LabServer
import SessionStore

/// A lab server read as a station: `export` of its stored documents as they are, with the notes
/// the command gives.
enum ServerSnapshot {
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
