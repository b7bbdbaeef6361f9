import Foundation
import GazeModel
import GRDB
import GRDBSQLite
import JSONStream

extension SessionDatabase {
    /// Writes one session as CSV: one row per sample time, all series side by side.
    ///
    /// Rows merge, by timestamp, the scan path, every blend-shape series and the recorder's
    /// per-frame features (each stored in time order); a value a series lacks at that time is an
    /// empty cell. RFC 4180 quoting, `.` as decimal separator, numbers in shortest round-trip form.
    /// Streams from SQLite inside one read transaction: memory stays flat. `movement` gives the
    /// label of the scan-path sample with the given sequence number (fixation/saccade/unknown).
    public func exportCSV(id: String, to sink: ByteSink, keyStyle: KeyStyle = .camelCase,
                          movement: ((Int) -> String?)? = nil) throws {
        try guarded("export session \(id) as CSV") {
            try writer.read { db in
                guard let rowid = try Self.rowid(db, id: id) else {
                    throw StoreError.unknownSession(id: id, databasePath: path)
                }
                try CSVSessionWriter(db: db, sessionRowID: rowid, sink: sink, keyStyle: keyStyle, movement: movement).write()
            }
        }
    }
}

/// The k-way merge behind `exportCSV`.
public final class CSVSessionWriter {
    private let db: Database
    private let sessionRowID: Int64
    private let out: JSONWriter
    private let keyStyle: KeyStyle
    private let movement: ((Int) -> String?)?

    /// One series being read: its statement and current row.
    private final class Cursor {
        let statement: Statement
        var handle: SQLiteStatement { statement.sqliteStatement }
        var hasRow = false
        var seq = 0
        init(_ statement: Statement) { self.statement = statement }
        func advance() throws {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: hasRow = true
            case SQLITE_DONE: hasRow = false
            case let code: throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "reading samples failed")
            }
        }
        var timestamp: Double { sqlite3_column_double(handle, 0) }
        func double(_ column: Int32) -> Double? {
            sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_double(handle, column)
        }
        func text(_ column: Int32) -> String? {
            sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : String(cString: sqlite3_column_text(handle, column))
        }
    }

    init(db: Database, sessionRowID: Int64, sink: ByteSink, keyStyle: KeyStyle, movement: ((Int) -> String?)?) {
        self.db = db
        self.sessionRowID = sessionRowID
        out = JSONWriter(sink: sink)
        self.keyStyle = keyStyle
        self.movement = movement
    }

    /// A sample's stored `trackingState` (the session format's spelling; NULL when normal) in
    /// gazerec's vocabulary.
    private static func state(_ cursor: Cursor, column: Int32) -> String {
        guard let text = cursor.text(column) else { return TrackingState.normal.rawValue }
        return TrackingState(eyeTrackingValue: text).rawValue
    }

    static func snake(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                if !result.isEmpty { result += "_" }
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    func write() throws {
        let series = try Row.fetchAll(db, sql: "SELECT rowid, name FROM blendShapeSeries WHERE sessionRowID = ? ORDER BY name",
                                      arguments: [sessionRowID])
        let gaze = Cursor(try db.makeStatement(sql: """
            SELECT timestamp, x, y, orientation, trackingState FROM gazeSample WHERE sessionRowID = ? ORDER BY seq
            """))
        sqlite3_bind_int64(gaze.handle, 1, sessionRowID)
        let blends: [Cursor] = try series.map { row in
            let cursor = Cursor(try db.makeStatement(sql: """
                SELECT timestamp, value, orientation, trackingState FROM blendShapeSample WHERE seriesRowID = ? ORDER BY seq
                """))
            sqlite3_bind_int64(cursor.handle, 1, row["rowid"] as Int64)
            return cursor
        }
        let frames = Cursor(try db.makeStatement(sql: """
            SELECT timestamp, trackingState, confidence, \(SampleTables.frameOptionalColumns.joined(separator: ", "))
            FROM frameSample WHERE sessionRowID = ? ORDER BY seq
            """))
        sqlite3_bind_int64(frames.handle, 1, sessionRowID)
        let all = [gaze] + blends + [frames]
        for cursor in all { try cursor.advance() }

        // Header.
        let fixed = ["timestamp", "x", "y", "orientation", "trackingState", "movement"]
        let frameColumns = ["confidence"] + SampleTables.frameOptionalColumns
        let names = fixed.map(name) + series.map { $0["name"] as String } + frameColumns.map(name)
        try text(names.map(Self.quoted).joined(separator: ","))
        try out.byte(0x0A)

        while true {
            // The earliest time among the series' current rows.
            var time = Double.infinity
            for cursor in all where cursor.hasRow { time = Swift.min(time, cursor.timestamp) }
            guard time.isFinite else { break }
            let gazeHere = gaze.hasRow && gaze.timestamp == time
            let frameHere = frames.hasRow && frames.timestamp == time
            var orientation: Double?, state: String?, stateFound = false
            try out.number(time)
            try comma()
            if gazeHere {
                try optional(gaze.double(1)); try comma()
                try optional(gaze.double(2)); try comma()
                orientation = gaze.double(3)
                state = Self.state(gaze, column: 4)
                stateFound = true
            } else {
                try comma(); try comma()  // no x, no y
            }
            for blend in blends where blend.hasRow && blend.timestamp == time && !stateFound {
                orientation = blend.double(2)
                state = Self.state(blend, column: 3)
                stateFound = true
            }
            if frameHere, !stateFound {
                // Frames store gazerec's vocabulary; a database written before import checked it
                // may hold other text, which is quoted as any free text.
                let text = frames.text(1) ?? TrackingState.normal.rawValue
                state = TrackingState(rawValue: text)?.rawValue ?? Self.quoted(text)
            }
            try optional(orientation); try comma()
            // The vocabulary needs no quoting (and checking it per row costs a tenth of the export).
            if let state { try text(state) }
            try comma()
            if gazeHere, let label = movement?(gaze.seq) { try text(label) }
            for blend in blends {
                try comma()
                if blend.hasRow && blend.timestamp == time { try optional(blend.double(1)) }
            }
            for column in 0..<frameColumns.count {
                try comma()
                if frameHere { try optional(frames.double(Int32(2 + column))) }
            }
            try out.byte(0x0A)
            // Advance every series that was at this time.
            for cursor in all where cursor.hasRow && cursor.timestamp == time {
                cursor.seq += 1
                try cursor.advance()
            }
        }
        for cursor in all { sqlite3_reset(cursor.handle) }
        try out.flush()
    }

    private func name(_ camel: String) -> String { keyStyle == .snakeCase ? Self.snake(camel) : camel }
    private func comma() throws { try out.byte(0x2C) }
    private func optional(_ value: Double?) throws { if let value { try out.number(value) } }
    private func text(_ value: String) throws {
        var value = value
        try value.withUTF8 { try out.rawBytes($0) }
    }

    /// RFC 4180: quote cells holding a comma, quote or line break; double inner quotes.
    public static func quoted(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
