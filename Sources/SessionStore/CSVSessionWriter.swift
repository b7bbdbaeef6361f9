import Foundation
import GazeAnalysis
import GazeModel
import GRDB
import GRDBSQLite
import JSONStream

extension SessionDatabase {
    /// Writes one session as CSV: one row per sample time, all series side by side.
    public func exportCSV(id: String, to sink: ByteSink, keyStyle: KeyStyle = .camelCase, movement: Bool = false) throws {
        try exportCSV(ids: [id], to: sink, keyStyle: keyStyle, movement: movement)
    }

    /// Writes sessions as one long CSV table: one header, then each session's rows, every row
    /// starting with its session id and app id (a table R or pandas reads whole). The columns are
    /// `CSVColumn.leading`, the blend shapes, then `CSVColumn.frame`.
    ///
    /// Rows merge, by timestamp, the scan path, every blend-shape series and the recorder's
    /// per-frame features (each stored in time order); a value a series lacks at that time is an
    /// empty cell. The blend-shape columns are those of any of the sessions, by name. RFC 4180
    /// quoting, `.` as decimal separator, numbers in shortest round-trip form. Streams from SQLite
    /// inside one read transaction: memory stays flat but for one session's movement labels (one
    /// byte per scan-path sample). With `movement`, each scan-path sample is labelled
    /// fixation/saccade/unknown by the session's default detector (`SessionHeader.fixationScale`).
    ///
    /// A damaged session throws `StoreError.damagedSession` after part of it was written (its rows
    /// are checked as they are read): the caller takes the bytes back (`SessionExport` does).
    public func exportCSV(ids: [String], to sink: ByteSink, keyStyle: KeyStyle = .camelCase, movement: Bool = false) throws {
        try readVerifying("export sessions as CSV") { db in
            let sessions: [(id: String, rowid: Int64)] = try ids.map { id in
                let rowid = try sessionRowID(db, id: id)
                return (try SessionTable.id(db, rowid: rowid, naming: id), rowid)
            }
            let names = try BlendShapeTable.names(db, sessionRowIDs: sessions.map(\.rowid))
            let expressions = try ExpressionTable.any(db, sessionRowIDs: sessions.map(\.rowid))
            let presentations = try PresentationTable.any(db, sessionRowIDs: sessions.map(\.rowid))
            let out = CSVWriter(sink: sink)
            for (index, session) in sessions.enumerated() {
                try Self.verifying(db, id: session.id, sessionRowID: session.rowid) {
                    let labels = movement ? try Self.movementLabels(db, sessionRowID: session.rowid) : nil
                    let writer = CSVSessionWriter(db: db, sessionID: session.id, sessionRowID: session.rowid, out: out,
                                                  keyStyle: keyStyle, blendShapeNames: names,
                                                  movement: labels.map { labels in { $0 < labels.count ? labels[$0].rawValue : nil } })
                    writer.expressionColumns = expressions
                    writer.presentationColumns = presentations
                    return try writer.write(header: index == 0)
                }
            }
            if sessions.isEmpty { try CSVSessionWriter.header(out: out, keyStyle: keyStyle, blendShapeNames: names) }
            try out.flush()
        }
    }

    /// The movement label of each of a session's scan-path samples, by its default detector.
    private static func movementLabels(_ db: Database, sessionRowID: Int64) throws -> [EyeMovement] {
        let header = try SessionTable.header(db, rowid: sessionRowID)
        return header.fixationScale().defaultDetector.detect(try GazeSampleTable.samples(db, sessionRowID: sessionRowID)).labels
    }
}

/// The k-way merge behind `exportCSV`.
public final class CSVSessionWriter {
    private let db: Database
    private let sessionID: String
    private let sessionRowID: Int64
    private let out: CSVWriter
    private let keyStyle: KeyStyle
    private let blendShapeNames: [String]
    private let movement: ((Int) -> String?)?
    /// Whether rows end with the expression columns (some session of the table has expressions).
    var expressionColumns = false
    /// Whether rows end with the presentation columns (some session of the table has presentations).
    var presentationColumns = false

    /// One series being read: its statement and current row.
    private final class Cursor {
        let statement: Statement
        var handle: SQLiteStatement { statement.sqliteStatement }
        // Read and written for every row: no run-time exclusivity checks (one thread, no overlapping access).
        @exclusivity(unchecked) var hasRow = false
        @exclusivity(unchecked) var seq = 0
        /// The row id the statement reads the rows of (0: a blend shape this session lacks).
        let ownerRowID: Int64
        init(_ statement: Statement, ownerRowID: Int64) {
            self.statement = statement
            self.ownerRowID = ownerRowID
            sqlite3_bind_int64(statement.sqliteStatement, 1, ownerRowID)
        }
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
        /// Whether the current row is at `time`.
        func isAt(_ time: Double) -> Bool { hasRow && timestamp == time }
    }

    /// What a session's rows are merged from: its series' cursors and the tables read whole.
    private struct Series {
        let gaze: Cursor
        let blends: [Cursor]
        let frames: Cursor
        /// The expression samples, when the table has their columns.
        let expressions: Cursor?
        /// The presentations' clocks and quoted labels in onset order, when the table has their columns.
        let presentations: [(clock: PresentationClock, labelCell: String)]?
        /// Every cursor: gaze, the blend shapes, frames, expressions.
        let all: [Cursor]
        /// Blinks and long closures flag the frames they span, each in its own column.
        let closureSpans: [[(start: Double, end: Double)]]
        /// Markers by time, each holding the rows from its time until the next marker's, and their
        /// cells (label, then data) quoted once here, not per row (rows of one interval all repeat them).
        let markers: [Marker]
        let markerCells: [String]
        /// The session's app id, quoted once; its begin time (Unix seconds), from which `elapsedSeconds` counts.
        let appIDCell: String
        let beginSeconds: Double
        /// Gaze on the session's screen (its deviceInfo.screenSize, the calibration's screen).
        let screenWidth: Double
        let screenHeight: Double
    }

    /// Where the merge stands in the tables read whole.
    private struct Position {
        /// Per kind (blink, long closure): the first span not ended before the row's time.
        var closureIndices = [0, 0]
        var markerIndex = -1
        /// The first presentation not ended before the row's time.
        var presentationIndex = 0
    }

    init(db: Database, sessionID: String, sessionRowID: Int64, out: CSVWriter, keyStyle: KeyStyle,
         blendShapeNames: [String], movement: ((Int) -> String?)?) {
        self.db = db
        self.sessionID = sessionID
        self.sessionRowID = sessionRowID
        self.out = out
        self.keyStyle = keyStyle
        self.blendShapeNames = blendShapeNames
        self.movement = movement
    }

    /// The header line.
    static func header(out: CSVWriter, keyStyle: KeyStyle, blendShapeNames: [String], expressions: Bool = false,
                       presentations: Bool = false) throws {
        func name(_ camel: String) -> String { keyStyle == .snakeCase ? snake(camel) : camel }
        let names = CSVColumn.leading.map { name($0.name) } + blendShapeNames + CSVColumn.frame.map { name($0.name) }
            + CSVColumn.trailing.map { name($0.name) } + (expressions ? expressionColumnNames.map(name) : [])
            + (presentations ? CSVColumn.presentation.map { name($0.name) } : [])
        try out.row(names)
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

    /// Writes the session's rows; returns how many rows of each series it read (`SequenceTable.Tally`).
    func write(header: Bool) throws -> SequenceTable.Tally {
        let series = try openSeries()
        for cursor in series.all { try cursor.advance() }
        if header {
            try Self.header(out: out, keyStyle: keyStyle, blendShapeNames: blendShapeNames, expressions: expressionColumns,
                            presentations: presentationColumns)
        }
        let idCell = CSVWriter.quoted(sessionID)
        var position = Position()
        while true {
            // The earliest time among the series' current rows.
            var time = Double.infinity
            for cursor in series.all where cursor.hasRow { time = Swift.min(time, cursor.timestamp) }
            guard time.isFinite else { break }
            try text(idCell)
            try comma()
            try writeRow(at: time, series, &position)
            try out.endRow()
            // Advance every series that was at this time.
            for cursor in series.all where cursor.isAt(time) {
                cursor.seq += 1
                try cursor.advance()
            }
        }
        for cursor in series.all { sqlite3_reset(cursor.handle) }
        var tally: SequenceTable.Tally = [.table("gazeSample"): series.gaze.seq, .table("frameSample"): series.frames.seq,
                                          .table("marker"): series.markers.count]
        for blend in series.blends where blend.ownerRowID != 0 { tally[.blendShape(seriesRowID: blend.ownerRowID)] = blend.seq }
        if let expressions = series.expressions { tally[.table("expressionSample")] = expressions.seq }
        return tally
    }

    /// The session's cursors, bound, and the tables read whole.
    private func openSeries() throws -> Series {
        let rowidByName = Dictionary(try BlendShapeTable.series(db, sessionRowID: sessionRowID).map { ($0.name, $0.rowid) }) { first, _ in first }
        let header = try SessionTable.header(db, rowid: sessionRowID)
        let markers = try MarkerTable.markers(db, sessionRowID: sessionRowID).sorted { $0.timestampSeconds < $1.timestampSeconds }
        let gaze = Cursor(try db.makeStatement(sql: GazeSampleTable.orderedSelectSQL), ownerRowID: sessionRowID)
        // One cursor per column; a column this session lacks reads nothing (series rowid 0 does not exist).
        let blends = try blendShapeNames.map { name in
            Cursor(try db.makeStatement(sql: BlendShapeTable.orderedSelectSQL), ownerRowID: rowidByName[name] ?? 0)
        }
        let frames = Cursor(try FrameTable.makeOrderedStatement(db, appearance: false), ownerRowID: sessionRowID)
        let expressions = expressionColumns
            ? Cursor(try ExpressionTable.makeOrderedStatement(db), ownerRowID: sessionRowID) : nil
        return Series(
            gaze: gaze, blends: blends, frames: frames, expressions: expressions,
            presentations: presentationColumns
                ? try PresentationTable.presentations(db, sessionRowID: sessionRowID).map { ($0.clock, CSVWriter.quoted($0.label)) } : nil,
            all: [gaze] + blends + [frames] + (expressions.map { [$0] } ?? []),
            closureSpans: try [BlinkEvent.Kind.blink, .longClosure].map { try BlinkTable.spans(db, sessionRowID: sessionRowID, kind: $0) },
            markers: markers, markerCells: markers.map { CSVWriter.quoted($0.label) + "," + ($0.dataJSON.map(CSVWriter.quoted) ?? "") },
            appIDCell: CSVWriter.quoted(header.appID), beginSeconds: header.beginTimeSeconds,
            screenWidth: header.deviceInfo.screenWidth, screenHeight: header.deviceInfo.screenHeight)
    }

    /// The cells after the session id of the row at `time`.
    private func writeRow(at time: Double, _ series: Series, _ position: inout Position) throws {
        let gaze = series.gaze, frames = series.frames
        let gazeHere = gaze.isAt(time), frameHere = frames.isAt(time)
        try text(series.appIDCell)
        try comma()
        if frameHere { try out.number(Double(frames.seq)) }
        try comma()
        try out.number(time)
        try comma()
        try out.number(((time - series.beginSeconds) * 1e6).rounded() / 1e6)
        try comma()
        var sample: (orientation: Double?, state: String)?
        if gazeHere {
            let x = gaze.double(1), y = gaze.double(2)
            try optional(x); try comma()
            try optional(y); try comma()
            if let x, let y { try text(isOnScreen(x: x, y: y, width: series.screenWidth, height: series.screenHeight) ? "1" : "0") }
            try comma()
            sample = (gaze.double(3), Self.state(gaze, column: 4))
        } else {
            try comma(); try comma(); try comma()  // no x, y, onScreen
        }
        if sample == nil, let blend = series.blends.first(where: { $0.isAt(time) }) {
            sample = (blend.double(2), Self.state(blend, column: 3))
        }
        try optional(sample?.orientation); try comma()
        // The vocabulary needs no quoting (and checking it per row costs a tenth of the export).
        if let state = sample?.state ?? (frameHere ? Self.frameState(frames) : nil) { try text(state) }
        try comma()
        if gazeHere, let label = movement?(gaze.seq) { try text(label) }
        try comma()
        while position.markerIndex + 1 < series.markers.count && series.markers[position.markerIndex + 1].timestampSeconds <= time {
            position.markerIndex += 1
        }
        if position.markerIndex >= 0 { try text(series.markerCells[position.markerIndex]) } else { try comma() }
        for blend in series.blends {
            try comma()
            if blend.isAt(time) { try optional(blend.double(1)) }
        }
        try comma()
        try writeFrameCells(frameHere ? frames : nil, at: time, series, &position)
        try comma()
        if position.markerIndex >= 0 {
            try out.number(((time - series.markers[position.markerIndex].timestampSeconds) * 1e6).rounded() / 1e6)
        }
        if let expressions = series.expressions { try writeExpressionCells(expressions.isAt(time) ? expressions : nil) }
        if let presentations = series.presentations { try writePresentationCells(presentations, at: time, &position) }
    }

    /// The presentation cells: a comma, the label of the presentation on the screen at `time`, a
    /// comma, its position in the stimulus (`PresentationClock`, to the microsecond); both empty between items.
    private func writePresentationCells(_ presentations: [(clock: PresentationClock, labelCell: String)], at time: Double,
                                        _ position: inout Position) throws {
        var index = position.presentationIndex
        while index < presentations.count, let offset = presentations[index].clock.offsetSeconds, offset <= time { index += 1 }
        position.presentationIndex = index
        try comma()
        guard index < presentations.count, let seconds = presentations[index].clock.stimulusSeconds(at: time) else {
            try comma()
            return
        }
        try text(presentations[index].labelCell)
        try comma()
        try out.number((seconds * 1e6).rounded() / 1e6)
    }

    /// The expression columns (camelCase): each expression's probability, 0…1.
    public static let expressionColumnNames = ExpressionTable.valueColumns.map { "expression" + $0.prefix(1).uppercased() + $0.dropFirst() + "Probability" }

    /// The expression cells: a comma, then each probability (empty without a sample at this time).
    private func writeExpressionCells(_ sample: Cursor?) throws {
        for column in 0..<ExpressionTable.valueColumns.count {
            try comma()
            if let sample { try optional(sample.double(Int32(1 + column))) }
        }
    }

    /// The frame cells: faceFound, blink, longClosure, then the frame's values (empty without a frame at this time).
    private func writeFrameCells(_ frame: Cursor?, at time: Double, _ series: Series, _ position: inout Position) throws {
        if let frame {
            let found = frame.text(1) != TrackingState.missing.rawValue
            try text(found ? "1" : "0")
            for (kind, spans) in series.closureSpans.enumerated() {
                try comma()
                var index = position.closureIndices[kind]
                while index < spans.count && spans[index].end < time { index += 1 }
                position.closureIndices[kind] = index
                try text(index < spans.count && spans[index].start <= time ? "1" : "0")
            }
        } else {
            try comma(); try comma()
        }
        for column in 0..<(CSVColumn.frame.count - CSVColumn.frameFlagCount) {
            try comma()
            if let frame { try optional(frame.double(Int32(2 + column))) }
        }
    }

    /// A sample's tracking state in gazerec's vocabulary (the gaze-sample table reads its stored spelling).
    private static func state(_ cursor: Cursor, column: Int32) -> String {
        GazeSampleTable.state(stored: cursor.text(column)).rawValue
    }

    /// A frame's tracking state. Frames store gazerec's vocabulary; a database written before
    /// import checked it may hold other text, which is quoted as any free text.
    private static func frameState(_ frames: Cursor) -> String {
        let text = frames.text(1) ?? TrackingState.normal.rawValue
        return TrackingState(rawValue: text)?.rawValue ?? CSVWriter.quoted(text)
    }

    private func comma() throws { try out.separator() }
    private func optional(_ value: Double?) throws { if let value { try out.number(value) } }
    /// Cells already quoted by `CSVWriter.quoted` (or a vocabulary that never needs it).
    private func text(_ value: String) throws { try out.fieldQuoted(value) }
}

/// One column of the CSV export: its name (camelCase, with the unit where a number has one) and
/// what it holds. `leading` and `frame` are the one list of columns: the header, the rows and the
/// documentation's table (docs/ExportFormat.md, checked by a test) follow it.
public struct CSVColumn: Sendable, Equatable {
    public let name: String
    public let meaning: String

    init(_ name: String, _ meaning: String) {
        self.name = name
        self.meaning = meaning
    }

    /// The columns before the blend shapes, in order.
    public static let leading: [CSVColumn] = [
        CSVColumn("sessionID", "the session's id"),
        CSVColumn("appID", "the recording application or study id"),
        CSVColumn("frame", "index of the recorded frame, from 0"),
        CSVColumn("timestampSeconds", "Unix time, seconds"),
        CSVColumn("elapsedSeconds", "seconds since the session's beginTime"),
        CSVColumn("xPoints", "gaze, screen points from the left"),
        CSVColumn("yPoints", "gaze, screen points from the top"),
        CSVColumn("onScreen", "1 when the gaze point is on the screen, else 0"),
        CSVColumn("orientation", "UIInterfaceOrientation raw value"),
        CSVColumn("trackingState", "gazerec's tracking state"),
        CSVColumn("movement", "fixation, saccade or unknown"),
        CSVColumn("marker", "label of the marker whose interval holds the row"),
        CSVColumn("markerData", "that marker's data, compact JSON"),
    ]

    /// The columns after the frame columns (before the optional expression columns, which stay
    /// last), added there so that readers of the earlier columns by position keep working.
    public static let trailing: [CSVColumn] = [
        CSVColumn("markerElapsedSeconds", "seconds since the marker whose interval holds the row"),
    ]

    /// The columns that end the rows when a session exported has presentations (`gazerec start
    /// --present`), after the expression columns: both derived from the stored presentations by
    /// `PresentationClock`, the one rule the stimulus commands use too.
    public static let presentation: [CSVColumn] = [
        CSVColumn("stimulus", "label of the presentation on the screen at the row's time; empty between items"),
        CSVColumn("stimulusSeconds", "playback position in that stimulus, its own seconds; empty between items"),
    ]

    /// The columns after the blend shapes, in order: the flags, then the stored frame values.
    public static let frame: [CSVColumn] = [
        CSVColumn("faceFound", "1 when the frame had a face, else 0"),
        CSVColumn("blink", "1 inside a blink, else 0"),
        CSVColumn("longClosure", "1 inside a long closure, else 0"),
    ] + frameValueColumns.map { CSVColumn($0.0, $0.1) }

    /// The frame columns computed per row (faceFound and the closures); the others are stored values.
    static let frameFlagCount = 3

    /// The stored frame values (`confidence`, then `FrameTable.optionalColumns` in order), named with their units.
    private static var frameValueColumns: [(String, String)] {
        let units: [String: (String, String)] = [
            "tx": ("txMillimetres", "head position, camera x axis, millimetres"),
            "ty": ("tyMillimetres", "head position, camera y axis, millimetres"),
            "tz": ("tzMillimetres", "head position, camera z axis (distance), millimetres"),
        ]
        return [("confidence", "landmark fit plausibility, 0 to 1")] + FrameTable.optionalColumns.map { name in
            units[name] ?? (name, name.hasSuffix("Degrees") ? "head pose, degrees" : name.hasPrefix("pupil")
                ? "pupil position, eye-corner units" : "eye openness, 0 to 1")
        }
    }
}
