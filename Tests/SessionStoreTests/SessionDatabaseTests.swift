import Foundation
import GazeModel
import JSONStream
import Testing
import TestSupport
@testable import SessionStore

@Suite("Session database")
struct SessionDatabaseTests {
    let a = "00000000-0000-0000-0000-00000000000A"
    let b = "00000000-0000-0000-0000-00000000000B"

    func twoSessions() throws -> SessionDatabase {
        let database = try SessionDatabase()
        try importText(database, "[\(sessionJSON(id: a)),\(sessionJSON(id: b))]")
        return database
    }

    @Test("deleting ids is all or nothing")
    func deleteIDs() throws {
        let database = try twoSessions()
        #expect(throws: StoreError.unknownSession(id: "00000000-0000-0000-0000-0000000000FF", databasePath: ":memory:")) {
            try database.delete(ids: [a, "00000000-0000-0000-0000-0000000000FF"])
        }
        #expect(try database.sessionIDs() == [a, b])
        try database.delete(ids: [a.lowercased()])
        #expect(try database.sessionIDs() == [b])
        // The samples went with the session.
        let orphans = try database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM gazeSample) + (SELECT COUNT(*) FROM blendShapeSample)")
        }
        #expect(orphans == 2)
    }

    @Test("an unknown session or calibration is an error that carries the id and names no command")
    func unknownIDsNameNoCommand() throws {
        let database = try twoSessions()
        let unknown = "00000000-0000-0000-0000-0000000000FF"
        #expect(throws: StoreError.unknownSession(id: unknown, databasePath: ":memory:")) { try database.summary(id: unknown) }
        #expect(throws: StoreError.unknownCalibration(id: unknown, databasePath: ":memory:")) {
            try database.calibration(id: unknown)
        }
        // What to type is the command line's to say (its ErrorHints); the store says what is missing where.
        #expect(StoreError.unknownSession(id: unknown, databasePath: ":memory:").description
                == "no session \(unknown) in :memory:.")
        #expect(StoreError.unknownCalibration(id: unknown, databasePath: ":memory:").description
                == "no calibration \(unknown) in :memory:.")
    }

    @Test("deleteAll empties every table")
    func deleteAll() throws {
        let database = try twoSessions()
        #expect(try database.deleteAll() == 2)
        #expect(try database.sessionIDs().isEmpty)
        #expect(try databaseContents(database) == "session: \ngazeSample: \nblendShapeSeries: \nblendShapeSample: \nframeSample: \nblinkEvent: \n")
    }

    @Test("summaries count samples and derive duration and rate")
    func summaries() throws {
        let database = try SessionDatabase()
        let samples = (0..<61).map { #"{"timestamp":\#(10 + Double($0) / 60),"x":1,"y":2,"orientation":3}"# }
        try importText(database, sessionJSON(scanPath: "[" + samples.joined(separator: ",") + "]").replacingOccurrences(
            of: #""endTime":2,"#, with: ""))
        let summary = try #require(try database.summaries().first)
        #expect(summary.gazeSampleCount == 61)
        #expect(abs(summary.achievedRateHz! - 60) < 1e-9)
        #expect(summary.durationSeconds == 10.0)  // unended: from begin (1) up to the last sample (11)
        #expect(summary.blendShapeSampleCounts.first?.count == 1)
    }

    @Test("a file database is created with its folder and deleted with its WAL files")
    func fileDatabase() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("nested/store.sqlite")
        do {
            let database = try SessionDatabase(path: path)
            try importText(database, sessionJSON())
            #expect(FileManager.default.fileExists(atPath: path))
        }
        // Reopened, the session is still there.
        #expect(try SessionDatabase(path: path).sessionIDs().count == 1)
        try SessionDatabase.deleteFiles(path: path)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test("an unusable database path is a clear error")
    func unusablePath() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Data("not a database".utf8).write(to: folder.url.appendingPathComponent("junk.sqlite"))
        #expect {
            try SessionDatabase(path: folder.path("junk.sqlite"))
        } throws: { error in
            // What and where; the CLI adds which option named the path.
            error as? StoreError == .database(action: SessionDatabase.openAction, path: folder.path("junk.sqlite"),
                                              reason: "file is not a database")
        }
    }
}
