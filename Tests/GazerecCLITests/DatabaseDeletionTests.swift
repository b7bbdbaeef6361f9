import Foundation
import GRDB
import Testing
import TestSupport

/// `delete --database` beside another process writing to the file: it waits for the writer, so
/// what that writer stored is deleted with the file, never written into a file already unlinked.
@Suite("Deleting the database beside a writer", .serialized)
struct DatabaseDeletionTests {
    /// Whether another process holds the database's write lock now (a write transaction open).
    static func writeLocked(_ path: String) -> Bool {
        var configuration = Configuration()
        configuration.busyMode = .immediateError
        guard FileManager.default.fileExists(atPath: path),
              let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return false }
        do {
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "ROLLBACK")
            }
            return false
        } catch {
            return true
        }
    }

    /// A document of 30 sessions of 5,000 samples each: an import that takes a while.
    static func bigDocument(in work: Workspace) throws -> String {
        let source = work.folder.path("source.sqlite")
        for _ in 0..<30 { _ = try Workspace.storeSession(in: source, samples: 5_000) }
        let file = work.folder.path("big.json")
        let exported = try Binary.run(["export", "--all", "--output", file], environment: ["GAZEREC_DATABASE": source])
        try #require(exported.status == 0, "\(exported.stderr)")
        return file
    }

    @Test("delete --database --yes during an import waits for it: the imported sessions are deleted with the file, none lost afterwards")
    func deleteDatabaseWaitsForImport() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let document = try Self.bigDocument(in: work)
        var before = ""
        // The import is stopped (SIGSTOP) inside its write transaction, and the deletion started
        // then, so a busy machine cannot let the import end first; a run that ended before its lock
        // was seen is tried again.
        var importer = Process()
        let imported = work.folder.path("imported.txt")
        var caught = false
        for _ in 0..<5 where !caught {
            try SessionDatabaseFiles.remove(work.database)
            before = try work.storeSession(samples: 10)
            importer = Process()
            importer.executableURL = URL(fileURLWithPath: Binary.gazerec)
            importer.arguments = ["import", document]
            importer.environment = ProcessInfo.processInfo.environment.merging(["GAZEREC_DATABASE": work.database]) { $1 }
            FileManager.default.createFile(atPath: imported, contents: nil)
            importer.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: imported))
            importer.standardError = FileHandle.nullDevice
            try importer.run()
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, importer.isRunning, !caught {
                if Self.writeLocked(work.database) {
                    kill(importer.processIdentifier, SIGSTOP)
                    caught = importer.isRunning && Self.writeLocked(work.database)
                    if !caught { kill(importer.processIdentifier, SIGCONT) }
                }
                usleep(1_000)
            }
            if !caught { importer.waitUntilExit() }
        }
        try #require(caught, "the import ended before its write lock was seen, five times")

        let deleter = Process()
        deleter.executableURL = URL(fileURLWithPath: Binary.gazerec)
        deleter.arguments = ["delete", "--database", "--yes"]
        deleter.environment = importer.environment
        let said = Pipe()
        deleter.standardOutput = FileHandle.nullDevice
        deleter.standardError = said
        try deleter.run()
        // Time for a deletion that does not wait to be done while the import is stopped; one that
        // waits cannot end before the import has committed.
        let settle = Date().addingTimeInterval(2)
        while Date() < settle, deleter.isRunning { usleep(10_000) }
        #expect(deleter.isRunning, "the deletion ended while the import was inside its transaction")
        kill(importer.processIdentifier, SIGCONT)
        importer.waitUntilExit()
        let stderr = String(decoding: said.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        deleter.waitUntilExit()

        let importedIDs = try String(contentsOfFile: imported, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(importer.terminationStatus == 0)
        #expect(deleter.terminationStatus == 0, "\(stderr)")
        #expect(importedIDs.count == 30 && !importedIDs.contains(before))
        #expect(stderr.contains("deleted \(work.database) and its 31 sessions"),
                "the deletion took the imported sessions with the file, not a file the import went on writing into: \(stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.database))
    }
}

/// The database file and its companions, removed between tries.
enum SessionDatabaseFiles {
    static func remove(_ path: String) throws {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
