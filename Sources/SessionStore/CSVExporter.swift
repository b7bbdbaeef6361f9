import Foundation
import GazeAnalysis
import GazeModel
import GRDB
import GRDBSQLite
import JSONStream

extension SessionDatabase {
    /// Writes one session as CSV: one row per sample time, all series side by side.
    public func exportCSV(id: String, to sink: ByteSink, keyStyle: KeyStyle = .camelCase,
                          movement: ((Int) -> String?)? = nil) throws {
        try exportCSV(ids: [id], to: sink, keyStyle: keyStyle, movement: movement.map { label in { _, index in label(index) } })
    }

    /// Writes sessions as one long CSV table: one header, then each session's rows, every row
    /// starting with its session id (a table R or pandas reads whole).
    ///
    /// Rows merge, by timestamp, the scan path, every blend-shape series and the recorder's
    /// per-frame features (each stored in time order); a value a series lacks at that time is an
    /// empty cell. The blend-shape columns are those of any of the sessions, by name. RFC 4180
    /// quoting, `.` as decimal separator, numbers in shortest round-trip form. Streams from SQLite
    /// inside one read transaction: memory stays flat. `movement` gives the label of a session's
    /// scan-path sample with the given sequence number (fixation/saccade/unknown).
    public func exportCSV(ids: [String], to sink: ByteSink, keyStyle: KeyStyle = .camelCase,
                          movement: ((String, Int) -> String?)? = nil) throws {
        try guarded("export sessions as CSV") {
            try writer.read { db in
                var sessions: [(id: String, rowid: Int64)] = []
                for id in ids {
                    guard let rowid = try Self.rowid(db, id: id) else {
                        throw StoreError.unknownSession(id: id, databasePath: path)
                    }
                    sessions.append((try String.fetchOne(db, sql: "SELECT id FROM session WHERE rowid = ?", arguments: [rowid])!, rowid))
                }
                let names = try String.fetchAll(db, sql: """
                    SELECT DISTINCT name FROM blendShapeSeries WHERE sessionRowID IN (\(sessions.map { String($0.rowid) }.joined(separator: ",")))
                    ORDER BY name
                    """)
                let out = JSONWriter(sink: sink)
                for (index, session) in sessions.enumerated() {
                    try CSVSessionWriter(db: db, sessionID: session.id, sessionRowID: session.rowid, out: out, keyStyle: keyStyle,
                                         blendShapeNames: names, movement: movement.map { label in { label(session.id, $0) } })
                        .write(header: index == 0)
                }
                if sessions.isEmpty { try CSVSessionWriter.header(out: out, keyStyle: keyStyle, blendShapeNames: names) }
                try out.flush()
            }
        }
    }
}

/// The k-way merge behind `exportCSV`.
public final class CSVSessionWriter {
    private let db: Database
    private let sessionID: String
    private let sessionRowID: Int64
    private let out: JSONWriter
    private let keyStyle: KeyStyle
    private let blendShapeNames: [String]
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

    init(db: Database, sessionID: String, sessionRowID: Int64, out: JSONWriter, keyStyle: KeyStyle,
         blendShapeNames: [String], movement: ((Int) -> String?)?) {
        self.db = db
        self.sessionID = sessionID
        self.sessionRowID = sessionRowID
        self.out = out
        self.keyStyle = keyStyle
        self.blendShapeNames = blendShapeNames
        self.movement = movement
    }

    /// Columns before the blend shapes, and the frame columns after them (camelCase).
    static let leadingColumns = ["sessionID", "frame", "timestamp", "x", "y", "onScreen", "orientation", "trackingState", "movement", "marker"]
    static let frameColumns = ["faceFound", "blink", "confidence"] + SampleTables.frameOptionalColumns

    /// The header line.
    static func header(out: JSONWriter, keyStyle: KeyStyle, blendShapeNames: [String]) throws {
        func name(_ camel: String) -> String { keyStyle == .snakeCase ? snake(camel) : camel }
        let names = leadingColumns.map(name) + blendShapeNames + frameColumns.map(name)
        var line = names.map(quoted).joined(separator: ",") + "\n"
        try line.withUTF8 { try out.rawBytes($0) }
    }

    /// A sample's stored `trackingState` (the session format's spelling; NULL when normal) in
    /// gazerec's vocabulary.
    private static func state(_ cursor: Cursor, column: Int32) -> String {
        guard let text = cursor.text(column) else { return TrackingState.normal.rawValue }
        return TrackingState(eyeTrackingValue: text).rawValue
    }

    /// Foundation's `convertToSnakeCase` for a column name: a capital starts a word, a run of
    /// capitals is one word (`sessionID` → `session_id`, `pupilLeftU` → `pupil_left_u`).
    static func snake(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    result += "_"
                }
            }
            result += character.lowercased()
        }
        return result
    }

    func write(header: Bool) throws {
        let stored = try Row.fetchAll(db, sql: "SELECT rowid, name FROM blendShapeSeries WHERE sessionRowID = ? ORDER BY name",
                                      arguments: [sessionRowID])
        let rowidByName = Dictionary(stored.map { ($0["name"] as String, $0["rowid"] as Int64) }) { first, _ in first }
        // Blinks (kind blink, not long closures) flag the frames they span.
        let blinkSpans = try Row.fetchAll(db, sql: "SELECT start, end FROM blinkEvent WHERE sessionRowID = ? AND kind = 'blink' ORDER BY start",
                                          arguments: [sessionRowID]).map { (start: $0["start"] as Double, end: $0["end"] as Double) }
        var blinkIndex = 0
        // Gaze on the session's screen (its deviceInfo.screenSize, the calibration's screen).
        let screen = try Row.fetchOne(db, sql: "SELECT screenWidth, screenHeight FROM session WHERE rowid = ?",
                                      arguments: [sessionRowID])
        let screenWidth: Double = screen?[0] ?? 0, screenHeight: Double = screen?[1] ?? 0
        // The marker whose interval holds each row: from its time until the next marker's.
        let markers = try SampleTables.markers(db, sessionRowID: sessionRowID).sorted { $0.timestampSeconds < $1.timestampSeconds }
        // Quoted once here, not per row (rows of one interval all repeat its label).
        let markerCells = markers.map { Self.quoted($0.label) }
        var markerIndex = -1
        let gaze = Cursor(try db.makeStatement(sql: """
            SELECT timestamp, x, y, orientation, trackingState FROM gazeSample WHERE sessionRowID = ? ORDER BY seq
            """))
        sqlite3_bind_int64(gaze.handle, 1, sessionRowID)
        // One cursor per column; a column this session lacks reads nothing (series rowid 0 does not exist).
        let blends: [Cursor] = try blendShapeNames.map { name in
            let cursor = Cursor(try db.makeStatement(sql: """
                SELECT timestamp, value, orientation, trackingState FROM blendShapeSample WHERE seriesRowID = ? ORDER BY seq
                """))
            sqlite3_bind_int64(cursor.handle, 1, rowidByName[name] ?? 0)
            return cursor
        }
        let frames = Cursor(try db.makeStatement(sql: """
            SELECT timestamp, trackingState, confidence, \(SampleTables.frameOptionalColumns.joined(separator: ", "))
            FROM frameSample WHERE sessionRowID = ? ORDER BY seq
            """))
        sqlite3_bind_int64(frames.handle, 1, sessionRowID)
        let all = [gaze] + blends + [frames]
        for cursor in all { try cursor.advance() }

        if header { try Self.header(out: out, keyStyle: keyStyle, blendShapeNames: blendShapeNames) }
        let idCell = Self.quoted(sessionID)

        while true {
            // The earliest time among the series' current rows.
            var time = Double.infinity
            for cursor in all where cursor.hasRow { time = Swift.min(time, cursor.timestamp) }
            guard time.isFinite else { break }
            let gazeHere = gaze.hasRow && gaze.timestamp == time
            let frameHere = frames.hasRow && frames.timestamp == time
            var orientation: Double?, state: String?, stateFound = false
            try text(idCell)
            try comma()
            if frameHere { try out.number(Double(frames.seq)) }
            try comma()
            try out.number(time)
            try comma()
            if gazeHere {
                let x = gaze.double(1), y = gaze.double(2)
                try optional(x); try comma()
                try optional(y); try comma()
                if let x, let y { try text(isOnScreen(x: x, y: y, width: screenWidth, height: screenHeight) ? "1" : "0") }
                try comma()
                orientation = gaze.double(3)
                state = Self.state(gaze, column: 4)
                stateFound = true
            } else {
                try comma(); try comma(); try comma()  // no x, y, onScreen
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
            try comma()
            while markerIndex + 1 < markers.count && markers[markerIndex + 1].timestampSeconds <= time { markerIndex += 1 }
            if markerIndex >= 0 { try text(markerCells[markerIndex]) }
            for blend in blends {
                try comma()
                if blend.hasRow && blend.timestamp == time { try optional(blend.double(1)) }
            }
            try comma()
            if frameHere {
                let found = frames.text(1) != TrackingState.missing.rawValue
                try text(found ? "1" : "0")
                try comma()
                while blinkIndex < blinkSpans.count && blinkSpans[blinkIndex].end < time { blinkIndex += 1 }
                try text(blinkIndex < blinkSpans.count && blinkSpans[blinkIndex].start <= time ? "1" : "0")
            } else {
                try comma()
            }
            for column in 0..<(Self.frameColumns.count - 2) {
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
    }

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
