import Foundation
import GazeModel
import GRDB
import JSONStream

/// The SQLite file that holds every session: the owner of its connection and its migrations.
///
/// Samples live in their own tables keyed by session and sequence number, so a recorder can
/// append in small transactions and a reader sees a consistent prefix of a running session.
/// Each table has one type that alone writes SQL for it (`SessionTable`, `GazeSampleTable`,
/// `BlendShapeTable`, `FrameTable`, `BlinkTable`, `MarkerTable`, `CalibrationTable`); the use
/// cases (export, import, CSV, attention, a running recording's writer, repair, replacement of
/// recorded data) go through them inside one `read` or `write`, which is one transaction: it
/// happens whole or not at all.
public final class SessionDatabase: Sendable {
    /// The GRDB connection; the table types and use cases reach it through `read` and `write`.
    ///
    /// A `DatabaseQueue` on a file in WAL mode: other processes (a running recorder, an export)
    /// read and write alongside it. Not a `DatabasePool`, which writes a scratch table on every
    /// open and would change the file even when a command fails and must leave it untouched.
    let writer: any DatabaseWriter
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
    /// Throws `noDatabase` when the file does not exist, `notSessionDatabase` when it is empty or
    /// holds no session tables (it is left untouched: reading never creates a schema), and
    /// `outdatedSchema` when it was written by an older gazerec and cannot be upgraded here (a
    /// writable file is upgraded first).
    public static func openForReading(path: String) throws -> SessionDatabase {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError.noDatabase(path: path) }
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size == 0 {
            throw StoreError.notSessionDatabase(path: path, reason: "it is empty (0 bytes)")
        }
        let database = try SessionDatabase(path: path, access: .readOnly)
        let (ours, current) = try database.read(openAction) { db in
            (try db.tableExists("grdb_migrations"), try SessionMigrations.migrator.hasCompletedMigrations(db))
        }
        guard ours else {
            throw StoreError.notSessionDatabase(path: path, reason: "it is an SQLite file without the session tables")
        }
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
    /// Whether the database is a file of its own that stays (not in memory, not a scratch database).
    let isFile: Bool
    /// How long a connection waits for another process's lock before giving up, in seconds.
    static let busyTimeoutSeconds = 10.0

    /// Opens the database at `path`: with `.readWrite` creating it if needed and migrating it.
    public init(path: String, access: Access = .readWrite) throws {
        self.path = path
        isReadOnly = access == .readOnly
        isFile = true
        if access == .readOnly {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(Self.busyTimeoutSeconds)
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
        configuration.busyMode = .timeout(Self.busyTimeoutSeconds)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // WAL is stored in the file: set it once, then this read leaves the file alone.
            if try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" {
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            }
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // What a user deletes is gone from disk: freed pages are overwritten with zeros, not
            // left holding the deleted rows (Debian's SQLite does this by default; not every build does).
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        do {
            writer = try DatabaseQueue(path: path, configuration: configuration)
            try SessionMigrations.migrator.migrate(writer)
        } catch let error as DatabaseError {
            throw StoreError.database(action: Self.openAction, path: path, reason: Self.reason(error))
        }
    }

    /// A writer leaves the database file complete when it is done with it (`finishWriting`).
    deinit {
        finishWriting()
    }

    /// Writes a compacted copy of the database, as of one snapshot, into the new file at `path`.
    static func vacuum(_ db: Database, into path: String) throws {
        try db.execute(sql: "VACUUM INTO ?", arguments: [path])
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
        isFile = false
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        writer = try DatabaseQueue(path: sqlitePath, configuration: configuration)
        try SessionMigrations.migrator.migrate(writer)
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
        case .SQLITE_BUSY:
            return text + " (another process, such as an import, has been writing to it for over "
                + "\(Int(busyTimeoutSeconds)) s; try again once it has finished)"
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
        } catch is RowDecodingError {
            throw StoreError.database(action: action, path: path, reason: Self.undecodable)
        } catch let damage as CalibrationTable.CalibrationDamage {
            throw StoreError.database(action: action, path: path,
                                      reason: "calibration \(damage.id) is damaged: \(damage.detail); restore the database from a backup copy")
        }
    }

    /// Why a stored value that does not decode failed a read: not what gazerec wrote.
    static let undecodable = "a stored value is not of the type gazerec wrote there: the file is damaged"

    /// Runs `body` in a read transaction (a consistent snapshot), SQLite errors told as failing `action`.
    func read<T>(_ action: String, _ body: (Database) throws -> T) throws -> T {
        try guarded(action) { try writer.read(body) }
    }

    /// Runs `body` in one write transaction, SQLite errors told as failing `action`.
    func write<T>(_ action: String, _ body: (Database) throws -> T) throws -> T {
        try guarded(action) { try writer.write(body) }
    }

    /// Runs `body` outside a transaction (to attach another file before one begins).
    func writeWithoutTransaction<T>(_ action: String, _ body: (Database) throws -> T) throws -> T {
        try guarded(action) { try writer.writeWithoutTransaction(body) }
    }

    /// Runs `body` with the database file at `path` attached under the schema name `name`
    /// (outside a transaction: SQLite attaches only there).
    static func attaching<T>(_ db: Database, path: String, as name: String, _ body: () throws -> T) throws -> T {
        try db.execute(sql: "ATTACH DATABASE ? AS \(name)", arguments: [path])
        defer { try? db.execute(sql: "DETACH DATABASE \(name)") }
        return try body()
    }

    /// The row id of the session named by `id` (or an unambiguous prefix); throws `unknownSession`.
    func sessionRowID(_ db: Database, id: String) throws -> Int64 {
        guard let rowid = try SessionTable.rowid(db, id: id) else {
            throw StoreError.unknownSession(id: id, databasePath: path)
        }
        return rowid
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
