import Foundation
import GazeModel
import GRDB

/// The stored values of one session checked against what gazerec writes there, before any reader
/// takes them as data: a number where a number belongs (SQLite's `typeof`, so text or a blob is
/// never read as 0), finite and within the bounds below, text where text belongs, no NULL in a
/// column gazerec always fills, every table and column of the schema present, an end not before
/// the begin, and a `"gazerec"` extension that is a JSON object.
///
/// The bounds are far beyond any recording and well inside what every reader can represent (a
/// date with a four-digit year, a pixel position in an integer); see docs/Recording.md.
///
/// The only code that writes SQL for this check. Costs one pass over the session's rows per table
/// in SQLite (no row is decoded in Swift); see docs/Performance.md.
enum StoredValueTable {
    /// The largest magnitude of a stored time (seconds since 1970): the last second of year 9999.
    static let timeBound = 253_402_300_799.0
    /// The largest magnitude of any other stored number (screen points, millimetres, degrees,
    /// seconds of a stimulus, probabilities, …).
    static let quantityBound = 1e9

    /// What a column holds.
    enum Kind: Equatable {
        /// Seconds since 1970, within ±`timeBound`.
        case time
        /// A finite number within ±`quantityBound`.
        case quantity
        /// A screen size: above 0 and at most `quantityBound`.
        case size
        /// An integer.
        case integer
        /// Text.
        case text
        /// One of these words (a frame's tracking state).
        case word(of: [String])
    }

    struct Column {
        var name: String
        var kind: Kind
        var nullable = false
    }

    /// One table's checked columns and how its rows belong to a session.
    struct Table {
        var name: String
        /// The rows' description in messages (one row).
        var row: String
        var columns: [Column]
        /// The condition selecting the session's rows (parameter 1: the session row id).
        var owner = "sessionRowID = ?1"
    }

    private static func c(_ name: String, _ kind: Kind, _ nullable: Bool = false) -> Column {
        Column(name: name, kind: kind, nullable: nullable)
    }

    private static func quantities(_ names: [String], nullable: Bool = true) -> [Column] {
        names.map { c($0, .quantity, nullable) }
    }

    /// Every table a session's rows are in, with the columns checked.
    static let tables: [Table] = [
        Table(name: "session", row: "the session row", columns: [
            c("id", .text), c("appID", .text), c("beginTime", .time), c("endTime", .time, true), c("deviceModel", .text),
            c("screenWidth", .size), c("screenHeight", .size), c("systemName", .text), c("systemVersion", .text),
            c("extensionJSON", .text, true), c("interrupted", .integer), c("recorderPID", .integer, true),
            c("seriesLengths", .text, true),
        ], owner: "rowid = ?1"),
        Table(name: "gazeSample", row: "gaze sample", columns: [
            c("seq", .integer), c("timestamp", .time), c("x", .quantity), c("y", .quantity), c("orientation", .integer),
            c("trackingState", .text, true),
        ]),
        Table(name: "blendShapeSeries", row: "blend-shape series", columns: [c("name", .text)]),
        Table(name: "blendShapeSample", row: "blend-shape sample", columns: [
            c("seq", .integer), c("timestamp", .time), c("value", .quantity), c("orientation", .integer),
            c("trackingState", .text, true),
        ], owner: "seriesRowID IN (SELECT rowid FROM blendShapeSeries WHERE sessionRowID = ?1)"),
        Table(name: "frameSample", row: "frame", columns: [
            c("seq", .integer), c("timestamp", .time), c("trackingState", .word(of: TrackingState.allCases.map(\.rawValue))),
            c("confidence", .quantity),
        ] + quantities(["opennessLeft", "opennessRight", "pupilLeftU", "pupilLeftV", "pupilRightU", "pupilRightV",
                        "yawDegrees", "pitchDegrees", "rollDegrees", "tx", "ty", "tz"])),
        Table(name: "blinkEvent", row: "blink event", columns: [
            c("seq", .integer), c("start", .time), c("end", .time), c("eyes", .text), c("kind", .text),
            c("minimumOpenness", .quantity),
        ]),
        Table(name: "expressionSample", row: "expression sample", columns: [c("seq", .integer), c("timestamp", .time)]
            + quantities(["neutral", "happy", "surprise", "sad", "angry", "disgust", "fear"], nullable: false)),
        Table(name: "marker", row: "marker", columns: [
            c("seq", .integer), c("timestamp", .time), c("label", .text), c("data", .text, true),
        ]),
        Table(name: "presentation", row: "presentation", columns: [
            c("seq", .integer), c("label", .text), c("kind", .text), c("fileName", .text, true), c("byteSize", .integer, true),
            c("sha256", .text, true), c("widthPixels", .integer, true), c("heightPixels", .integer, true),
            c("onset", .time), c("offset", .time, true), c("ending", .text, true), c("endingReason", .text, true),
        ] + quantities(["durationSeconds", "frameRate", "rectX", "rectY", "rectWidth", "rectHeight"])),
        Table(name: "presentationEvent", row: "presentation event", columns: [
            c("seq", .integer), c("presentation", .integer), c("kind", .text), c("timestamp", .time),
            c("stimulusSeconds", .quantity, false), c("fromStimulusSeconds", .quantity, true),
        ]),
        Table(name: "playbackSample", row: "playback sample", columns: [
            c("seq", .integer), c("presentation", .integer), c("timestamp", .time), c("stimulusSeconds", .quantity, false),
        ]),
    ]

    /// The SQL condition true when `column` holds what gazerec writes there.
    static func sound(_ column: Column) -> String {
        let name = "\"\(column.name)\""
        let value: String
        switch column.kind {
        // A comparison with numbers alone checks the type too: SQLite orders every number before
        // every text and every text before every blob, so text, a blob, NULL and ±infinity all fall
        // outside a finite range (half the cost of typeof and abs on a long session).
        case .time: value = "\(name) BETWEEN -\(timeBound) AND \(timeBound)"
        case .quantity: value = "\(name) BETWEEN -\(quantityBound) AND \(quantityBound)"
        case .size: value = "(\(name) > 0 AND \(name) <= \(quantityBound))"
        case .integer: value = "typeof(\(name)) = 'integer'"
        case .text: value = "typeof(\(name)) = 'text'"
        case .word(let words): value = "(typeof(\(name)) = 'text' AND \(name) IN (\(words.map { "'\($0)'" }.joined(separator: ", "))))"
        }
        return column.nullable ? "(\(name) IS NULL OR \(value))" : value
    }

    /// What is wrong with the stored values of session `sessionRowID`, said as a damage detail
    /// (nil when every value is what gazerec writes).
    static func damage(_ db: Database, sessionRowID: Int64) throws -> String? {
        for table in tables {
            if let detail = try damage(db, table: table, sessionRowID: sessionRowID) { return detail }
        }
        return try sessionDamage(db, sessionRowID: sessionRowID)
    }

    /// The first unsound value of `table`'s rows of the session, or a missing table or column.
    private static func damage(_ db: Database, table: Table, sessionRowID: Int64) throws -> String? {
        guard try db.tableExists(table.name) else { return "the table \(table.name) is missing from the database" }
        let present = Set(try db.columns(in: table.name).map(\.name))
        if let missing = table.columns.first(where: { !present.contains($0.name) }) {
            return "the column \(missing.name) is missing from the table \(table.name)"
        }
        // A prepared statement per connection: the check runs for every session a command reads.
        guard let row = try Row.fetchOne(try db.cachedStatement(sql: firstUnsoundSQL(table)), arguments: [sessionRowID]) else {
            return nil
        }
        for (index, column) in table.columns.enumerated() where try row.decode(Bool?.self, atIndex: 1 + 3 * index) != true {
            let seq = try row.decode(DatabaseValue.self, atIndex: 0)
            let place = table.name == "session" ? table.row : "\(table.row)\(seq.storage.value.map { " \($0)" } ?? "")"
            let described = describe(type: try row.decode(String.self, atIndex: 2 + 3 * index),
                                     value: try row.decode(DatabaseValue.self, atIndex: 3 + 3 * index), kind: column.kind)
            return "\(column.name) of \(place) is \(described)"
        }
        return nil
    }

    /// The query for the first row of `table`'s session rows holding an unsound value: its `seq`
    /// (NULL for a table without one), then per column whether it is sound, its type and its value.
    static func firstUnsoundSQL(_ table: Table) -> String {
        let conditions = table.columns.map { "NOT \(sound($0))" }.joined(separator: " OR ")
        let hasSeq = table.columns.contains { $0.name == "seq" }
        return """
            SELECT \(hasSeq ? "seq" : "NULL"), \(table.columns.map { "\(sound($0)), typeof(\"\($0.name)\"), \"\($0.name)\"" }.joined(separator: ", "))
            FROM \(table.name) WHERE \(table.owner) AND (\(conditions)) LIMIT 1
            """
    }

    /// An unsound value said for a message (text is never quoted: it may hold any bytes).
    static func describe(type: String, value: DatabaseValue, kind: Kind) -> String {
        if case .word(let words) = kind, value.storage.value is String {
            return "text that is none of \(words.joined(separator: ", ")) (not quoted: it may hold any bytes)"
        }
        let numeric = [.time, .quantity, .size].contains(kind)
        let wanted = kind == .integer ? "an integer" : numeric ? "a number" : "text"
        switch value.storage {
        case .null: return "NULL where gazerec always stores \(wanted)"
        case .double(let number) where !number.isFinite: return "\(number) where gazerec stores a finite number"
        case .double(let number) where kind == .integer: return "\(number) where gazerec stores an integer"
        case .double(let number) where numeric: return "\(number), outside \(bound(kind)) (beyond any recording)"
        case .int64(let number) where numeric: return "\(number), outside \(bound(kind)) (beyond any recording)"
        default: return "\(type == "blob" ? "a blob" : type) where gazerec stores \(wanted)"
        }
    }

    /// The range a kind of value must lie in, for a message.
    static func bound(_ kind: Kind) -> String {
        switch kind {
        case .time: return "±\(Int64(timeBound)) s (the years before 10000)"
        case .size: return "(0, \(Int64(quantityBound))]"
        default: return "±\(Int64(quantityBound))"
        }
    }

    /// Damage only the session row as a whole shows: an id that is not a UUID, an end before the
    /// begin, an extension that is not a JSON object.
    private static func sessionDamage(_ db: Database, sessionRowID: Int64) throws -> String? {
        guard let row = try Row.fetchOne(db, sql: "SELECT beginTime, endTime, extensionJSON, id FROM session WHERE rowid = ?",
                                         arguments: [sessionRowID]) else { return nil }
        let begin: Double = try row.decode(atIndex: 0), end: Double? = try row.decode(atIndex: 1)
        if UUID(uuidString: try row.decode(String.self, atIndex: 3)) == nil { return "its id is not a UUID" }
        if let end, end < begin {
            return "endTime (\(end)) is before beginTime (\(begin)); a session cannot end before it begins"
        }
        if let text: String = try row.decode(atIndex: 2), SessionExtension(storedText: text) == nil {
            return "its \"gazerec\" extension (extensionJSON) is not a JSON object"
        }
        return nil
    }
}
