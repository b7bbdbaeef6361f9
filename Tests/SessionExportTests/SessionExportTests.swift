import BIDSExport
import Foundation
import JSONStream
import SessionExport
import SessionStore
import Testing
import TestSupport

/// The one export entry point as a library caller (a GazeKit program) uses it: the format a value,
/// the same bytes as the store's own writers, every destination, and the selection's rules.
@Suite("SessionExport")
struct SessionExportTests {
    static let ios = "3BE54760-F1E8-4799-A3CB-78806270E72A"

    /// The iOS fixture imported into a database file in `folder`.
    static func database(in folder: TemporaryFolder) throws -> SessionDatabase {
        let database = try SessionDatabase(path: folder.path("db.sqlite"))
        _ = try database.importSessions(from: [.file(Fixtures.iosSession)])
        return database
    }

    @Test("JSON and CSV through every destination are the bytes the store's writers stream",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func sameBytesEveryDestination() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try Self.database(in: folder)
        let formats: [(SessionExport.Format, String, (ByteSink) throws -> Void)] = [
            (.json(ExportOptions(keyStyle: .snakeCase, pretty: true)), "json",
             { try database.export(ids: [Self.ios], asArray: false, to: $0, options: ExportOptions(keyStyle: .snakeCase, pretty: true)) }),
            (.csv(keyStyle: .camelCase, movement: true), "csv", { try database.exportCSV(ids: [Self.ios], to: $0, movement: true) }),
        ]
        for (format, ending, direct) in formats {
            let expected = MemoryByteSink()
            try direct(expected)
            let export = SessionExport(format: format)
            // A prefix, named twice: one session, the repeat counted.
            let file = folder.path("one.\(ending)")
            let report = try export.write(.named(["3be54760", Self.ios]), from: database, to: .file(file))
            #expect(report.sessionIDs == [Self.ios] && report.repeated == 1 && report.files == [file])
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file))) == expected.bytes, "\(ending) to a file")
            let stream = folder.path("stream.\(ending)")
            _ = try export.write(.named([Self.ios]), from: database, to: .stream(try FileByteSink(creating: stream)))
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: stream))) == expected.bytes, "\(ending) to a stream")
            let each = try export.write(.all, from: database, to: .folder(folder.path("each-\(ending)")))
            #expect(each.files == [folder.path("each-\(ending)/\(Self.ios).\(ending)")])
        }
    }

    @Test("BIDS writes into a folder only; an unknown id writes nothing",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func refusals() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try Self.database(in: folder)
        let bids = SessionExport(format: .bids(BIDSRunOptions(subject: .label("01"), task: "reading")))
        #expect(throws: BIDSExportError.self) { try bids.write(.all, from: database, to: .file(folder.path("x"))) }
        #expect(!FileManager.default.fileExists(atPath: folder.path("x")))
        let json = SessionExport(format: .json(ExportOptions()))
        #expect(throws: StoreError.self) { try json.write(.named(["FFFF"]), from: database, to: .file(folder.path("y.json"))) }
        #expect(!FileManager.default.fileExists(atPath: folder.path("y.json")))
    }
}
