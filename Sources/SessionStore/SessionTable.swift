import Foundation
import GazeModel
import GRDB

/// The `session` table: one row per session, its header, device, `"gazerec"` extension and state.
///
/// The only code that writes SQL for this table. Every function runs inside the caller's
/// transaction (`SessionDatabase.read` / `write`).
enum SessionTable {
    /// A session row as stored.
    struct Record: FetchableRecord {
        /// The table's columns.
        enum Columns: String, TableColumn {
            case rowid, id, appID, beginTime, endTime, deviceModel, screenWidth, screenHeight, systemName, systemVersion
            case extensionJSON, interrupted, recorderPID
        }

        var header: SessionHeader
        /// The stored flag (sessions repaired before the mark was kept in the extension have only this).
        var interrupted: Bool

        init(row: Row) throws {
            // Decoded with `decode`, which throws on a value of the wrong type (a damaged page)
            // where a subscript would stop the process.
            let device = DeviceInfo(
                model: try row.decode(forColumn: Columns.deviceModel), screenWidth: try row.decode(forColumn: Columns.screenWidth),
                screenHeight: try row.decode(forColumn: Columns.screenHeight), systemName: try row.decode(forColumn: Columns.systemName),
                systemVersion: try row.decode(forColumn: Columns.systemVersion))
            var gazerecExtension = SessionExtension(storedText: try row.decode(forColumn: Columns.extensionJSON))
            interrupted = try row.decode(forColumn: Columns.interrupted)
            // Sessions repaired before the mark was kept in the extension still carry it out.
            if interrupted && gazerecExtension?.interrupted != true {
                gazerecExtension = gazerecExtension ?? SessionExtension()
                gazerecExtension?.interrupted = true
            }
            header = SessionHeader(
                id: try row.decode(forColumn: Columns.id), appID: try row.decode(forColumn: Columns.appID),
                beginTimeSeconds: try row.decode(forColumn: Columns.beginTime),
                endTimeSeconds: try row.decode(forColumn: Columns.endTime), deviceInfo: device, gazerecExtension: gazerecExtension)
        }
    }

    private typealias Columns = Record.Columns

    /// The columns a session's header is read from (`Record`).
    private static let headerColumns: [Columns] = [.id, .appID, .beginTime, .endTime, .deviceModel, .screenWidth, .screenHeight,
                                                   .systemName, .systemVersion, .extensionJSON, .interrupted]

    /// The order sessions are listed in: oldest first, then by id.
    private static let oldestFirst = "\(Columns.beginTime), \(Columns.id)"

    // MARK: - Finding

    /// The row id of the session with `id` (case-insensitive), or nil.
    ///
    /// As git does, a shorter prefix of at least 4 characters names the one session whose id
    /// starts with it (`allowPrefix`); a prefix that fits several throws `ambiguousSession`.
    static func rowid(_ db: Database, id: String, allowPrefix: Bool = true) throws -> Int64? {
        let key = id.uppercased()
        // The id as given first: a damaged id that is not upper case must still name its row.
        for spelling in Set([id, key]) {
            if let exact = try Int64.fetchOne(db, sql: "SELECT \(Columns.rowid) FROM session WHERE \(Columns.id) = ?",
                                              arguments: [spelling]) { return exact }
        }
        guard allowPrefix, key.count >= 4, key.count < 36, key.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return nil }
        let rows = try Row.fetchAll(db, sql: """
            SELECT \([Columns.rowid, .id].names) FROM session WHERE substr(\(Columns.id), 1, ?) = ? ORDER BY \(Columns.id) LIMIT 5
            """, arguments: [key.count, key])
        if rows.count > 1 { throw StoreError.ambiguousSession(prefix: id, matches: try rows.map { try $0.decode(forColumn: Columns.id) }) }
        return try rows.first.map { try $0.decode(forColumn: Columns.rowid) }
    }

    /// The row id of the session with exactly this id in the attached database `schema`.
    static func rowid(_ db: Database, id: String, schema: String) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT \(Columns.rowid) FROM \(schema).session WHERE \(Columns.id) = ?", arguments: [id])
    }

    /// The row ids of every session, oldest first.
    static func rowids(_ db: Database) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT \(Columns.rowid) FROM session ORDER BY \(oldestFirst)")
    }

    /// The row ids of the sessions recorded under `appID` (exactly), oldest first.
    static func rowids(_ db: Database, appID: String) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT \(Columns.rowid) FROM session WHERE \(Columns.appID) = ? ORDER BY \(oldestFirst)",
                           arguments: [appID])
    }

    /// The ids of every session, oldest first.
    static func ids(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT \(Columns.id) FROM session ORDER BY \(oldestFirst)")
    }

    /// The full id of a session row.
    static func id(_ db: Database, rowid: Int64) throws -> String? {
        try String.fetchOne(db, sql: "SELECT \(Columns.id) FROM session WHERE \(Columns.rowid) = ?", arguments: [rowid])
    }

    /// The full id of a session row that the id index found for `given`; throws `DamageFound`
    /// when the row is gone (the session table has lost pages the index still points into).
    static func id(_ db: Database, rowid: Int64, naming given: String) throws -> String {
        guard let id = try id(db, rowid: rowid) else {
            throw DamageFound(id: given.uppercased(), detail: "its session row is missing though the id index names it")
        }
        return id
    }

    /// Number of sessions.
    static func count(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM session") ?? 0
    }

    // MARK: - Reading

    /// A session row's header and stored interrupted flag.
    static func record(_ db: Database, rowid: Int64) throws -> Record {
        guard let record = try Record.fetchOne(db, sql: """
            SELECT \(headerColumns.names) FROM session WHERE \(Columns.rowid) = ?
            """, arguments: [rowid]) else {
            // Found by the id index a moment ago in the same transaction: the table has lost pages.
            throw DatabaseError(resultCode: .SQLITE_CORRUPT,
                                message: "its session row is missing though the id index names it: the file is damaged")
        }
        return record
    }

    /// A session row's header.
    static func header(_ db: Database, rowid: Int64) throws -> SessionHeader {
        try record(db, rowid: rowid).header
    }

    /// What `list` and `show` report about a session row.
    static func summary(_ db: Database, rowid: Int64) throws -> SessionSummary {
        let record = try record(db, rowid: rowid)
        let gaze = try GazeSampleTable.span(db, sessionRowID: rowid)
        return SessionSummary(
            header: record.header, gazeSampleCount: gaze.count,
            blendShapeSampleCounts: try BlendShapeTable.sampleCounts(db, sessionRowID: rowid),
            firstGazeTimestampSeconds: gaze.first, lastGazeTimestampSeconds: gaze.last,
            interrupted: record.interrupted)
    }

    /// A session row's screen size (points) and end time (Unix seconds), nil when the row is gone.
    static func screenAndEnd(_ db: Database, rowid: Int64) throws -> (width: Double, height: Double, end: Double?)? {
        try Row.fetchOne(db, sql: """
            SELECT \([Columns.screenWidth, .screenHeight, .endTime].names) FROM session WHERE \(Columns.rowid) = ?
            """, arguments: [rowid]).map { (try $0.decode(forColumn: Columns.screenWidth), try $0.decode(forColumn: Columns.screenHeight), try $0.decode(forColumn: Columns.endTime)) }
    }

    /// Recordings without an end time (a recorder's pid marks them; an imported session without an
    /// end time is as its file gave it, not open): row id, id, begin time and extension.
    static func openSessions(_ db: Database) throws -> [(rowid: Int64, id: String, beginTime: Double, gazerecExtension: SessionExtension?)] {
        try Row.fetchAll(db, sql: """
            SELECT \([Columns.rowid, .id, .beginTime, .extensionJSON].names) FROM session
            WHERE \(Columns.endTime) IS NULL AND \(Columns.recorderPID) IS NOT NULL
            """).map {
            (try $0.decode(forColumn: Columns.rowid), try $0.decode(forColumn: Columns.id), try $0.decode(forColumn: Columns.beginTime),
             SessionExtension(storedText: try $0.decode(forColumn: Columns.extensionJSON)))
        }
    }

    // MARK: - Writing

    /// The columns a recording's row starts with, in `insertRecording`'s parameters' order.
    private static let recordingColumns: [Columns] = [.id, .appID, .beginTime, .deviceModel, .screenWidth, .screenHeight,
                                                      .systemName, .systemVersion, .extensionJSON, .recorderPID]

    /// Inserts a recording's row (no end time yet; `recorderPID` marks it running); returns its row id.
    static func insertRecording(_ db: Database, header: SessionHeader, recorderPID: Int32) throws -> Int64 {
        try db.execute(sql: """
            INSERT INTO session (\(recordingColumns.names)) VALUES (\(recordingColumns.placeholders))
            """, arguments: [header.id, header.appID, header.beginTimeSeconds, header.deviceInfo.model,
                             header.deviceInfo.screenWidth, header.deviceInfo.screenHeight,
                             header.deviceInfo.systemName, header.deviceInfo.systemVersion,
                             header.gazerecExtension?.storedText, recorderPID])
        return db.lastInsertedRowID
    }

    /// The columns an import's placeholder row sets: its private name, then empty values.
    private static let placeholderColumns: [Columns] = [.id, .appID, .beginTime, .deviceModel, .screenWidth, .screenHeight,
                                                        .systemName, .systemVersion]

    /// Inserts an import's placeholder row under the private name `name`; returns its row id.
    static func insertPlaceholder(_ db: Database, name: String) throws -> Int64 {
        try db.execute(sql: """
            INSERT INTO session (\(placeholderColumns.names)) VALUES (?, '', 0, '', 0, 0, '', '')
            """, arguments: [name])
        return db.lastInsertedRowID
    }

    /// Gives a row (an import's placeholder) its header; the interrupted flag follows the extension.
    static func update(_ db: Database, rowid: Int64, header: SessionHeader) throws {
        let device = header.deviceInfo
        try db.execute(sql: """
            UPDATE session SET \(headerColumns.assignments) WHERE \(Columns.rowid) = ?
            """, arguments: [header.id, header.appID, header.beginTimeSeconds, header.endTimeSeconds, device.model,
                             device.screenWidth, device.screenHeight, device.systemName, device.systemVersion,
                             header.gazerecExtension?.storedText, header.gazerecExtension?.interrupted == true, rowid])
    }

    /// Ends a recording: its end time and final extension; it is no longer running.
    static func close(_ db: Database, rowid: Int64, endTimeSeconds: Double, gazerecExtension: SessionExtension?) throws {
        try db.execute(sql: """
            UPDATE session SET \([Columns.endTime, .extensionJSON].assignments), \(Columns.recorderPID) = NULL
            WHERE \(Columns.rowid) = ?
            """, arguments: [endTimeSeconds, gazerecExtension?.storedText, rowid])
    }

    /// Closes a session whose recorder died: its end time, marked interrupted (in the row and the extension).
    static func closeInterrupted(_ db: Database, rowid: Int64, endTimeSeconds: Double, gazerecExtension: SessionExtension) throws {
        try db.execute(sql: """
            UPDATE session SET \(Columns.endTime) = ?, \(Columns.interrupted) = 1, \(Columns.recorderPID) = NULL,
                \(Columns.extensionJSON) = ? WHERE \(Columns.rowid) = ?
            """, arguments: [endTimeSeconds, gazerecExtension.storedText, rowid])
    }

    /// Replaces a session's extension object.
    static func setExtension(_ db: Database, rowid: Int64, _ gazerecExtension: SessionExtension) throws {
        try db.execute(sql: "UPDATE session SET \(Columns.extensionJSON) = ? WHERE \(Columns.rowid) = ?",
                       arguments: [gazerecExtension.storedText, rowid])
    }

    /// Replaces a session's extension object and screen size (points).
    static func setExtension(_ db: Database, rowid: Int64, _ gazerecExtension: SessionExtension,
                             screenWidth: Double, screenHeight: Double) throws {
        try db.execute(sql: """
            UPDATE session SET \([Columns.extensionJSON, .screenWidth, .screenHeight].assignments) WHERE \(Columns.rowid) = ?
            """,
                       arguments: [gazerecExtension.storedText, screenWidth, screenHeight, rowid])
    }

    /// Deletes a session row; the schema's trigger deletes its samples with it.
    static func delete(_ db: Database, rowid: Int64) throws {
        try db.execute(sql: "DELETE FROM session WHERE \(Columns.rowid) = ?", arguments: [rowid])
    }

    /// Deletes every session row (the sample tables are emptied by their own types first).
    static func deleteAll(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM session")
    }
}

extension SessionDatabase {
    /// Every session, oldest first.
    public func summaries() throws -> [SessionSummary] {
        try read("list sessions") { db in try SessionTable.rowids(db).map { try SessionTable.summary(db, rowid: $0) } }
    }

    /// The ids of every session, oldest first.
    public func sessionIDs() throws -> [String] {
        try read("list sessions") { db in try SessionTable.ids(db) }
    }

    /// One session's summary; throws `unknownSession` if absent.
    public func summary(id: String) throws -> SessionSummary {
        try read("read session \(id)") { db in try SessionTable.summary(db, rowid: try sessionRowID(db, id: id)) }
    }

    /// The full id of the session named by `id` or an unambiguous prefix of it.
    public func canonicalID(_ id: String) throws -> String {
        // The session row alone: a summary would count the session's samples.
        try readVerifying("read session \(id)") { db in try SessionTable.id(db, rowid: try sessionRowID(db, id: id), naming: id) }
    }

    /// Deletes the sessions with these ids (or unambiguous prefixes), and the videos they own, in
    /// one step; if any is unknown, deletes none. Returns the full ids deleted (`deleteSessions`
    /// also says which files went with them).
    @discardableResult
    public func delete(ids: [String]) throws -> [String] { try deleteSessions(ids: ids).sessionIDs }

    /// Deletes every session (the iOS package's `deleteAll()`) and the videos they own; returns how
    /// many sessions there were.
    @discardableResult
    public func deleteAll() throws -> Int { try deleteAllSessions().sessionIDs.count }
}
