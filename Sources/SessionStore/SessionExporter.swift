import Foundation
import GRDB
import GRDBSQLite

/// How sessions are written out.
public struct ExportOptions: Sendable {
    public var keyStyle: KeyStyle
    public var pretty: Bool
    /// Whether to write the `"gazerec"` extension object.
    public var includeExtension: Bool

    public init(keyStyle: KeyStyle = .camelCase, pretty: Bool = false, includeExtension: Bool = true) {
        self.keyStyle = keyStyle
        self.pretty = pretty
        self.includeExtension = includeExtension
    }
}

extension SessionDatabase {
    /// Writes sessions as EyeTracking JSON: one object, or an array when `asArray`.
    ///
    /// Streams rows from SQLite to the sink inside one read transaction, so the output is a
    /// consistent snapshot even while a recorder appends, and memory stays flat.
    /// The same stored session always produces the same bytes.
    public func export(ids: [String], asArray: Bool, to sink: ByteSink, options: ExportOptions = .init()) throws {
        try guarded("export sessions") {
            try writer.read { db in
                var rowids: [Int64] = []
                for id in ids {
                    guard let rowid = try Self.rowid(db, id: id) else {
                        throw StoreError.unknownSession(id: id, databasePath: path)
                    }
                    rowids.append(rowid)
                }
                let json = JSONWriter(sink: sink, pretty: options.pretty)
                let exporter = try SessionExporter(db: db, json: json, options: options)
                if asArray { try json.beginArray() }
                for rowid in rowids {
                    if asArray { try json.element() }
                    try exporter.writeSession(rowid: rowid)
                }
                if asArray { try json.endArray() }
                if options.pretty || asArray || !rowids.isEmpty { try json.byte(0x0A) }
                try json.flush()
            }
        }
    }

    /// Exports each session into `directory/<id>.json`, each written to a temporary file and renamed into place.
    ///
    /// Returns the paths written.
    public func export(ids: [String], toDirectory directory: String, options: ExportOptions = .init()) throws -> [String] {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError.io(action: "create the output folder", path: directory,
                                reason: (error as NSError).localizedDescription)
        }
        // Resolve every id first, so an unknown id writes nothing.
        let canonical = try ids.map { try summary(id: $0).header.id }
        var written: [String] = []
        for id in canonical {
            let target = (directory as NSString).appendingPathComponent("\(id).json")
            try Self.writeAtomically(to: target) { sink in
                try export(ids: [id], asArray: false, to: sink, options: options)
            }
            written.append(target)
        }
        return written
    }

    /// Writes a file through a temporary sibling and a rename, so readers never see half a file.
    public static func writeAtomically(to path: String, _ body: (FileByteSink) throws -> Void) throws {
        let temporary = path + ".tmp-\(getpid())"
        do {
            let sink = try FileByteSink(creating: temporary)
            try body(sink)
            try sink.synchronize()
        } catch {
            unlink(temporary)
            throw error
        }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw StoreError.io(action: "write", path: path, reason: reason)
        }
    }
}

/// Writes stored sessions as JSON straight from SQLite cursors.
final class SessionExporter {
    private let db: Database
    private let json: JSONWriter
    private let options: ExportOptions
    private let gazeStatement: Statement
    private let blendStatement: Statement

    init(db: Database, json: JSONWriter, options: ExportOptions) throws {
        self.db = db
        self.json = json
        self.options = options
        gazeStatement = try db.makeStatement(sql: """
            SELECT timestamp, x, y, orientation, trackingState FROM gazeSample WHERE sessionRowID = ? ORDER BY seq
            """)
        blendStatement = try db.makeStatement(sql: """
            SELECT timestamp, value, orientation, trackingState FROM blendShapeSample WHERE seriesRowID = ? ORDER BY seq
            """)
    }

    private func key(_ key: SessionKey) throws { try json.key(key.spelling(options.keyStyle)) }

    func writeSession(rowid: Int64) throws {
        let (header, _) = try SessionDatabase.header(db, rowid: rowid)
        try json.beginObject()
        try key(.id); try json.string(header.id)
        try key(.appID); try json.string(header.appID)
        try key(.beginTime); try json.number(header.beginTimeSeconds)
        if let end = header.endTimeSeconds { try key(.endTime); try json.number(end) }
        try key(.deviceInfo)
        try json.beginObject()
        try key(.model); try json.string(header.deviceInfo.model)
        try key(.screenSize)
        try json.beginArray()
        try json.element(); try json.number(header.deviceInfo.screenWidth)
        try json.element(); try json.number(header.deviceInfo.screenHeight)
        try json.endArray()
        try key(.systemName); try json.string(header.deviceInfo.systemName)
        try key(.systemVersion); try json.string(header.deviceInfo.systemVersion)
        try json.endObject()

        try key(.scanPath)
        try writeScanPath(sessionRowID: rowid)

        try key(.blendShapes)
        try json.beginObject()
        let series = try Row.fetchAll(db, sql: """
            SELECT rowid, name FROM blendShapeSeries WHERE sessionRowID = ? ORDER BY name
            """, arguments: [rowid])
        for row in series {
            let name: String = row["name"]
            try json.key(name)
            try writeBlendShapes(seriesRowID: row["rowid"], name: name)
        }
        try json.endObject()

        if options.includeExtension, let text = header.extensionJSON {
            try key(.gazerec)
            let reader = try JSONReader(source: .bytes(Array(text.utf8), name: "stored extension of \(header.id)"))
            try json.value(try reader.readValue())
        }
        try json.endObject()
    }

    private func writeScanPath(sessionRowID: Int64) throws {
        let statement = gazeStatement.sqliteStatement
        sqlite3_reset(statement)
        sqlite3_bind_int64(statement, 1, sessionRowID)
        try json.beginArray()
        while try step(statement) {
            try json.element()
            try json.beginObject()
            try key(.timestamp); try json.number(sqlite3_column_double(statement, 0))
            try key(.x); try json.number(sqlite3_column_double(statement, 1))
            try key(.y); try json.number(sqlite3_column_double(statement, 2))
            try key(.orientation); try json.integer(sqlite3_column_int64(statement, 3))
            if sqlite3_column_type(statement, 4) != SQLITE_NULL {
                try key(.trackingState); try json.string(String(cString: sqlite3_column_text(statement, 4)))
            }
            try json.endObject()
        }
        try json.endArray()
    }

    private func writeBlendShapes(seriesRowID: Int64, name: String) throws {
        let statement = blendStatement.sqliteStatement
        sqlite3_reset(statement)
        sqlite3_bind_int64(statement, 1, seriesRowID)
        try json.beginArray()
        while try step(statement) {
            try json.element()
            try json.beginObject()
            try key(.blendShapeLocation); try json.string(name)
            try key(.value); try json.number(sqlite3_column_double(statement, 1))
            try key(.timestamp); try json.number(sqlite3_column_double(statement, 0))
            try key(.orientation); try json.integer(sqlite3_column_int64(statement, 2))
            if sqlite3_column_type(statement, 3) != SQLITE_NULL {
                try key(.trackingState); try json.string(String(cString: sqlite3_column_text(statement, 3)))
            }
            try json.endObject()
        }
        try json.endArray()
    }

    /// Steps a query: true for a row, false when done.
    private func step(_ statement: SQLiteStatement) throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
    }
}
