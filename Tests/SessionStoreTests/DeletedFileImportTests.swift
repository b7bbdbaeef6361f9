import Foundation
import Testing
import TestSupport
@testable import SessionStore

/// An import that commits into a database file deleted meanwhile (a `delete --database` it waited
/// for went first) fails instead of reporting sessions stored in a file no longer there.
@Suite("Import into a deleted file")
struct DeletedFileImportTests {
    static let document = #"{"id":"D0000000-0000-0000-0000-00000000000D","appID":"p01","beginTime":1790000000,"#
        + #""deviceInfo":{"model":"cam","screenSize":[1600,900],"systemName":"Linux","systemVersion":"test"},"scanPath":[],"blendShapes":{}}"#

    @Test("the import fails, naming the file, when the file was deleted under its open connection")
    func importIntoDeletedFileFails() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("db.sqlite")
        let database = try SessionDatabase(path: path)
        try SessionDatabase.deleteFiles(path: path)
        #expect(throws: StoreError.io(action: "import into", path: path, reason: "the database file was deleted or replaced while "
                                      + "the import ran, so nothing of it is stored there; import again")) {
            try database.importSessions(from: [.bytes(Array(Self.document.utf8), name: "s.json")])
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
