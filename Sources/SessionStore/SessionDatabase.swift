import Foundation
import GazeModel
import GRDB
import JSONStream

/// The SQLite file that holds every session: one writer, readers in other processes alongside it (WAL).
///
/// Samples live in their own tables keyed by session and sequence number, so a recorder can
/// append in small transactions and a reader sees a consistent prefix of a running session.
/// Every write method is one transaction: it happens whole or not at all.
public final class SessionDatabase: Sendable {
    /// The GRDB connection.
    ///
    /// A `DatabaseQueue` on a file in WAL mode: other processes (a running recorder, an export)
    /// read and write alongside it. Not a `DatabasePool`, which writes a scratch table on every
    /// open and would change the file even when a command fails and must leave it untouched.
    public let writer: any DatabaseWriter
    /// The file path, `:memory:`, or what a scratch database stands for (a server's address).
    public let path: String

    /// How a command uses the file.
    public enum Access: Sendable {
        /// Reads and writes; the file and its folder are created when missing, the schema migrated.
        case readWrite
        /// Only reads: the file must exist and is never changed (no migration, no repair). A file in
        /// a folder this process cannot write to (an archive on a read-only share) is read as an
        /// immutable snapshot, since SQLite could not create the WAL index beside it.
        case readOnly
    }

    /// Opens an existing database for reading only; see `Access.readOnly`.
    ///
    /// Throws `noDatabase` when the file does not exist, and `outdatedSchema` when it was written
    /// by an older gazerec and cannot be upgraded here (a writable file is upgraded first).
    public static func openForReading(path: String) throws -> SessionDatabase {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError.noDatabase(path: path) }
        let database = try SessionDatabase(path: path, access: .readOnly)
        let current = try database.guarded(openAction) { try database.writer.read { try migrator.hasCompletedMigrations($0) } }
        if current { return database }
        guard access(path, W_OK) == 0, access((path as NSString).deletingLastPathComponent.nonEmpty ?? ".", W_OK) == 0 else {
            throw StoreError.outdatedSchema(path: path)
        }
        // Written by an older gazerec: upgrade it once (as any writing command would), then read.
        _ = try SessionDatabase(path: path, access: .readWrite)
        return try SessionDatabase(path: path, access: .readOnly)
    }

    /// Whether this connection only reads.
    public let isReadOnly: Bool

    /// Opens the database at `path`: with `.readWrite` creating it if needed and migrating it.
    public init(path: String, access: Access = .readWrite) throws {
        self.path = path
        isReadOnly = access == .readOnly
        if access == .readOnly {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(10)
            let directory = (path as NSString).deletingLastPathComponent.nonEmpty ?? "."
            // SQLite needs to create `-shm` beside a WAL file to read it; where it cannot, the file
            // is read as immutable (nobody can change it there either).
            let openedPath = Foundation.access(directory, W_OK) == 0 ? path : Self.immutableURI(path)
            do {
                writer = try DatabaseQueue(path: openedPath, configuration: configuration)
            } catch let error as DatabaseError {
                throw StoreError.database(action: Self.openAction, path: path, reason: Self.reason(error))
            }
            return
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreError.io(action: "create the database folder", path: directory,
                                    reason: (error as NSError).localizedDescription)
            }
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // WAL is stored in the file: set it once, then this read leaves the file alone.
            if try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" {
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            }
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            writer = try DatabaseQueue(path: path, configuration: configuration)
            try Self.migrator.migrate(writer)
        } catch let error as DatabaseError {
            throw StoreError.database(action: Self.openAction, path: path, reason: Self.reason(error))
        }
    }

    /// The `action` of the error when the file cannot be opened or migrated.
    public static let openAction = "open the session database"

    /// An empty in-memory database (tests).
    public convenience init(inMemory: Void = ()) throws {
        try self.init(unsavedAt: ":memory:", name: ":memory:")
    }

    /// An empty scratch database in a private temporary file that SQLite deletes when it is
    /// closed (it stays in memory up to its page cache, then spills to the file): a working copy of
    /// any size in flat memory, nothing left behind. `name` is what messages call it (where its
    /// sessions came from).
    public convenience init(scratchFor name: String) throws {
        try self.init(unsavedAt: "", name: name)
    }

    /// An empty database SQLite keeps only while it is open: in memory (`:memory:`) or in a
    /// private temporary file (`""`).
    private init(unsavedAt sqlitePath: String, name: String) throws {
        path = name
        isReadOnly = false
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        writer = try DatabaseQueue(path: sqlitePath, configuration: configuration)
        try Self.migrator.migrate(writer)
    }

    /// A `file:` URI opening `path` as immutable (SQLite is built with URI filenames enabled).
    static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }

    /// A short human reason from a SQLite error.
    static func reason(_ error: DatabaseError) -> String {
        let text = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_CANTOPEN:
            return text + " (is the disk full, or the file or its folder not writable?)"
        default:
            return text
        }
    }

    /// Wraps GRDB errors into `StoreError.database` with `action`.
    func guarded<T>(_ action: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StoreError.database(action: action, path: path, reason: Self.reason(error))
        } catch let error as JSONError {
            throw StoreError(error)
        }
    }

    // MARK: - Schema

    /// Migrations are never edited once shipped; add a new one instead.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: sessions and samples") { db in
            try db.execute(sql: """
                CREATE TABLE session (
                    rowid INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    appID TEXT NOT NULL,
                    beginTime REAL NOT NULL,
                    endTime REAL,
                    deviceModel TEXT NOT NULL,
                    screenWidth REAL NOT NULL,
                    screenHeight REAL NOT NULL,
                    systemName TEXT NOT NULL,
                    systemVersion TEXT NOT NULL,
                    extensionJSON TEXT,
                    interrupted INTEGER NOT NULL DEFAULT 0,
                    recorderPID INTEGER
                );
                CREATE TABLE gazeSample (
                    sessionRowID INTEGER NOT NULL,
                    seq INTEGER NOT NULL,
                    timestamp REAL NOT NULL,
                    x REAL NOT NULL,
                    y REAL NOT NULL,
                    orientation INTEGER NOT NULL,
                    trackingState TEXT,
                    PRIMARY KEY (sessionRowID, seq)
                ) WITHOUT ROWID;
                CREATE TABLE blendShapeSeries (
                    rowid INTEGER PRIMARY KEY,
                    sessionRowID INTEGER NOT NULL REFERENCES session(rowid) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    UNIQUE (sessionRowID, name)
                );
                CREATE TABLE blendShapeSample (
                    seriesRowID INTEGER NOT NULL,
                    seq INTEGER NOT NULL,
                    timestamp REAL NOT NULL,
                    value REAL NOT NULL,
                    orientation INTEGER NOT NULL,
                    trackingState TEXT,
                    PRIMARY KEY (seriesRowID, seq)
                ) WITHOUT ROWID;
                -- Samples carry no foreign key (a parent lookup per inserted sample halves import
                -- speed); this trigger keeps them from outliving their session instead.
                CREATE TRIGGER sessionDeletesSamples BEFORE DELETE ON session BEGIN
                    DELETE FROM gazeSample WHERE sessionRowID = OLD.rowid;
                    DELETE FROM blendShapeSample
                        WHERE seriesRowID IN (SELECT rowid FROM blendShapeSeries WHERE sessionRowID = OLD.rowid);
                    DELETE FROM blendShapeSeries WHERE sessionRowID = OLD.rowid;
                END;
                """)
        }
        migrator.registerMigration("v2: per-frame features and blink events") { db in
            try db.execute(sql: """
                CREATE TABLE frameSample (
                    sessionRowID INTEGER NOT NULL,
                    seq INTEGER NOT NULL,
                    timestamp REAL NOT NULL,
                    trackingState TEXT NOT NULL,
                    confidence REAL NOT NULL,
                    opennessLeft REAL,
                    opennessRight REAL,
                    pupilLeftU REAL,
                    pupilLeftV REAL,
                    pupilRightU REAL,
                    pupilRightV REAL,
                    yawDegrees REAL,
                    pitchDegrees REAL,
                    rollDegrees REAL,
                    tx REAL,
                    ty REAL,
                    tz REAL,
                    PRIMARY KEY (sessionRowID, seq)
                ) WITHOUT ROWID;
                CREATE TABLE blinkEvent (
                    sessionRowID INTEGER NOT NULL,
                    seq INTEGER NOT NULL,
                    start REAL NOT NULL,
                    end REAL NOT NULL,
                    eyes TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    minimumOpenness REAL NOT NULL,
                    PRIMARY KEY (sessionRowID, seq)
                ) WITHOUT ROWID;
                DROP TRIGGER sessionDeletesSamples;
                CREATE TRIGGER sessionDeletesSamples BEFORE DELETE ON session BEGIN
                    DELETE FROM gazeSample WHERE sessionRowID = OLD.rowid;
                    DELETE FROM blendShapeSample
                        WHERE seriesRowID IN (SELECT rowid FROM blendShapeSeries WHERE sessionRowID = OLD.rowid);
                    DELETE FROM blendShapeSeries WHERE sessionRowID = OLD.rowid;
                    DELETE FROM frameSample WHERE sessionRowID = OLD.rowid;
                    DELETE FROM blinkEvent WHERE sessionRowID = OLD.rowid;
                END;
                """)
        }
        registerCalibrationMigration(&migrator)
        migrator.registerMigration("v4: per-frame eye appearance") { db in
            // EyeAppearance.encoded (801 bytes): the stabilised landmarks and eye patches a
            // calibration maps; NULL for frames without a face and frames recorded before.
            try db.execute(sql: "ALTER TABLE frameSample ADD COLUMN appearance BLOB")
        }
        migrator.registerMigration("v5: event markers") { db in
            try db.execute(sql: """
                CREATE TABLE marker (
                    sessionRowID INTEGER NOT NULL,
                    seq INTEGER NOT NULL,
                    timestamp REAL NOT NULL,
                    label TEXT NOT NULL,
                    data TEXT,
                    PRIMARY KEY (sessionRowID, seq)
                ) WITHOUT ROWID;
                DROP TRIGGER sessionDeletesSamples;
                CREATE TRIGGER sessionDeletesSamples BEFORE DELETE ON session BEGIN
                    DELETE FROM gazeSample WHERE sessionRowID = OLD.rowid;
                    DELETE FROM blendShapeSample
                        WHERE seriesRowID IN (SELECT rowid FROM blendShapeSeries WHERE sessionRowID = OLD.rowid);
                    DELETE FROM blendShapeSeries WHERE sessionRowID = OLD.rowid;
                    DELETE FROM frameSample WHERE sessionRowID = OLD.rowid;
                    DELETE FROM blinkEvent WHERE sessionRowID = OLD.rowid;
                    DELETE FROM marker WHERE sessionRowID = OLD.rowid;
                END;
                """)
        }
        return migrator
    }

    // MARK: - Reading

    /// Every session, oldest first.
    public func summaries() throws -> [SessionSummary] {
        try guarded("list sessions") {
            try writer.read { db in
                let rowids = try Int64.fetchAll(db, sql: "SELECT rowid FROM session ORDER BY beginTime, id")
                return try rowids.map { try Self.summary(db, rowid: $0) }
            }
        }
    }

    /// The ids of every session, oldest first.
    public func sessionIDs() throws -> [String] {
        try guarded("list sessions") {
            try writer.read { db in try String.fetchAll(db, sql: "SELECT id FROM session ORDER BY beginTime, id") }
        }
    }

    /// One session's summary; throws `unknownSession` if absent.
    public func summary(id: String) throws -> SessionSummary {
        try guarded("read session \(id)") {
            try writer.read { db in
                guard let rowid = try Self.rowid(db, id: id) else {
                    throw StoreError.unknownSession(id: id, databasePath: path)
                }
                return try Self.summary(db, rowid: rowid)
            }
        }
    }

    /// The row id of the session with `id` (case-insensitive), or nil.
    ///
    /// As git does, a shorter prefix of at least 4 characters names the one session whose id
    /// starts with it (`allowPrefix`); a prefix that fits several throws `ambiguousSession`.
    static func rowid(_ db: Database, id: String, allowPrefix: Bool = true) throws -> Int64? {
        let key = id.uppercased()
        if let exact = try Int64.fetchOne(db, sql: "SELECT rowid FROM session WHERE id = ?", arguments: [key]) { return exact }
        guard allowPrefix, key.count >= 4, key.count < 36, key.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return nil }
        let rows = try Row.fetchAll(db, sql: "SELECT rowid, id FROM session WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 5",
                                    arguments: [key.count, key])
        if rows.count > 1 { throw StoreError.ambiguousSession(prefix: id, matches: rows.map { $0["id"] }) }
        return rows.first?["rowid"]
    }

    static func header(_ db: Database, rowid: Int64) throws -> (SessionHeader, interrupted: Bool) {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT id, appID, beginTime, endTime, deviceModel, screenWidth, screenHeight,
                   systemName, systemVersion, extensionJSON, interrupted
            FROM session WHERE rowid = ?
            """, arguments: [rowid]) else {
            throw DatabaseError(resultCode: .SQLITE_NOTFOUND, message: "session row \(rowid) vanished")
        }
        let device = DeviceInfo(
            model: row["deviceModel"], screenWidth: row["screenWidth"], screenHeight: row["screenHeight"],
            systemName: row["systemName"], systemVersion: row["systemVersion"])
        var gazerecExtension = SessionExtension(storedText: row["extensionJSON"])
        let interrupted: Bool = row["interrupted"]
        // Sessions repaired before the mark was kept in the extension still carry it out.
        if interrupted && gazerecExtension?.interrupted != true {
            gazerecExtension = gazerecExtension ?? SessionExtension()
            gazerecExtension?.interrupted = true
        }
        let header = SessionHeader(
            id: row["id"], appID: row["appID"], beginTimeSeconds: row["beginTime"], endTimeSeconds: row["endTime"],
            deviceInfo: device, gazerecExtension: gazerecExtension)
        return (header, interrupted)
    }

    static func summary(_ db: Database, rowid: Int64) throws -> SessionSummary {
        let (header, interrupted) = try header(db, rowid: rowid)
        let gaze = try Row.fetchOne(db, sql: """
            SELECT COUNT(*) AS n, MIN(timestamp) AS first, MAX(timestamp) AS last
            FROM gazeSample WHERE sessionRowID = ?
            """, arguments: [rowid])!
        let blend = try Row.fetchAll(db, sql: """
            SELECT s.name AS name, (SELECT COUNT(*) FROM blendShapeSample b WHERE b.seriesRowID = s.rowid) AS n
            FROM blendShapeSeries s WHERE s.sessionRowID = ? ORDER BY s.name
            """, arguments: [rowid])
        return SessionSummary(
            header: header, gazeSampleCount: gaze["n"],
            blendShapeSampleCounts: blend.map { (name: $0["name"], count: $0["n"]) },
            firstGazeTimestampSeconds: gaze["first"], lastGazeTimestampSeconds: gaze["last"],
            interrupted: interrupted)
    }

    // MARK: - Deleting

    /// Deletes the sessions with these ids (or unambiguous prefixes) in one transaction; if any
    /// is unknown, deletes none. Returns the full ids deleted.
    @discardableResult
    public func delete(ids: [String]) throws -> [String] {
        try guarded("delete sessions") {
            try writer.write { db in
                var rowids: [Int64] = []
                for id in ids {
                    guard let rowid = try Self.rowid(db, id: id) else {
                        throw StoreError.unknownSession(id: id, databasePath: path)
                    }
                    rowids.append(rowid)
                }
                var deleted: [String] = []
                for rowid in rowids {
                    deleted += try String.fetchAll(db, sql: "SELECT id FROM session WHERE rowid = ?", arguments: [rowid])
                    try db.execute(sql: "DELETE FROM session WHERE rowid = ?", arguments: [rowid])
                }
                return deleted
            }
        }
    }

    /// The full id of the session named by `id` or an unambiguous prefix of it.
    public func canonicalID(_ id: String) throws -> String {
        try summary(id: id).header.id
    }

    /// Deletes every session (the iOS package's `deleteAll()`); returns how many there were.
    @discardableResult
    public func deleteAll() throws -> Int {
        try guarded("delete all sessions") {
            try writer.write { db in
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM session") ?? 0
                try db.execute(sql: """
                    DELETE FROM blendShapeSample; DELETE FROM blendShapeSeries; DELETE FROM gazeSample;
                    DELETE FROM frameSample; DELETE FROM blinkEvent; DELETE FROM marker; DELETE FROM session
                    """)
                return count
            }
        }
    }

    /// Removes the database file and its WAL/SHM companions (the iOS package's `deleteDatabase()`).
    ///
    /// Call with no `SessionDatabase` open on the file.
    public static func deleteFiles(path: String) throws {
        for suffix in ["", "-wal", "-shm"] {
            let file = path + suffix
            if unlink(file) != 0 && errno != ENOENT {
                throw StoreError.io(action: "delete", path: file, reason: String(cString: strerror(errno)))
            }
        }
    }
}

extension String {
    /// nil for the empty string.
    var nonEmpty: String? { isEmpty ? nil : self }
}
