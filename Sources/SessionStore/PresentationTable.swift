import GazeModel
import GRDB

/// The `presentation`, `presentationEvent` and `playbackSample` tables: the items the presenter
/// showed during a recording (`Presentation`), their pauses, resumes, seeks and stalls, and the
/// player's clock against the session's.
///
/// A presentation's row is keyed by its index (`seq` = `Presentation.index`, 0, 1, 2, … in the
/// order shown) and rewritten whole each time the recorder records it (at its onset, during it,
/// at its end); its events and playback samples are logs that only grow, numbered across the
/// session (`seq`) and naming their presentation. All three are series in the sense of
/// `SeriesLengthTable`.
///
/// The only code that writes SQL for these tables; every function runs in the caller's transaction.
enum PresentationTable {
    /// The `presentation` table's columns.
    enum Columns: String, TableColumn {
        case sessionRowID, seq, label, kind, fileName, byteSize, sha256, durationSeconds, frameRate
        case widthPixels, heightPixels, rectX, rectY, rectWidth, rectHeight, onset, offset, ending, endingReason
    }

    /// The `presentationEvent` table's columns.
    enum EventColumns: String, TableColumn {
        case sessionRowID, seq, presentation, kind, timestamp, stimulusSeconds, fromStimulusSeconds
    }

    /// The `playbackSample` table's columns.
    enum PlaybackColumns: String, TableColumn {
        case sessionRowID, seq, presentation, timestamp, stimulusSeconds
    }

    /// The stored `ending` of a presentation that played to its end, and of one cut short.
    private static let finished = "finished", cutShort = "cutShort"

    private static let upsertSQL = "INSERT OR REPLACE INTO presentation (\(Columns.allCases.names)) VALUES (\(Columns.allCases.placeholders))"
    private static let eventSQL = "INSERT INTO presentationEvent (\(EventColumns.allCases.names)) VALUES (\(EventColumns.allCases.placeholders))"
    private static let playbackSQL = "INSERT INTO playbackSample (\(PlaybackColumns.allCases.names)) VALUES (\(PlaybackColumns.allCases.placeholders))"

    /// How many rows of a presentation's logs are stored, and the next `seq` of each log.
    struct Logs {
        /// Presentation index → (events, playback samples) stored.
        var stored: [Int: (events: Int, playback: Int)] = [:]
        var nextEventSeq = 0
        var nextPlaybackSeq = 0
        /// How many presentation rows are stored (indices 0 ..< count).
        var presentations = 0
    }

    /// Inserts `presentation`'s row or replaces the stored one of the same index, and appends the
    /// events and playback samples beyond those `logs` says are stored (a presentation recorded
    /// again carries its earlier ones first; stored rows are never rewritten). Returns `logs` as
    /// they stand after the write. Throws SQLite's constraint error when the index would leave a gap.
    static func record(_ db: Database, _ presentation: Presentation, sessionRowID: Int64, logs: Logs) throws -> Logs {
        let index = presentation.index
        guard index >= 0, index <= logs.presentations else {
            throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "presentation \(index) would leave a gap: "
                                + "the session holds \(logs.presentations) (indices 0 to \(logs.presentations - 1))")
        }
        try db.cachedStatement(sql: upsertSQL).execute(arguments: Columns.arguments(row(presentation, sessionRowID: sessionRowID)))
        var logs = logs
        let stored = logs.stored[index] ?? (0, 0)
        for event in presentation.events.dropFirst(stored.events) {
            try db.cachedStatement(sql: eventSQL).execute(arguments: [
                sessionRowID, logs.nextEventSeq, index, event.kind.rawValue, event.timestampSeconds, event.stimulusSeconds,
                event.fromStimulusSeconds,
            ])
            logs.nextEventSeq += 1
        }
        for sample in presentation.playback.dropFirst(stored.playback) {
            try db.cachedStatement(sql: playbackSQL).execute(arguments: [
                sessionRowID, logs.nextPlaybackSeq, index, sample.timestampSeconds, sample.stimulusSeconds,
            ])
            logs.nextPlaybackSeq += 1
        }
        logs.stored[index] = (max(stored.events, presentation.events.count), max(stored.playback, presentation.playback.count))
        logs.presentations = max(logs.presentations, index + 1)
        return logs
    }

    /// Scales every stored rectangle of the session by `x` and `y` (a new screen's points over the
    /// old one's): a rectangle is in the session's screen points, and the presenter scaled the
    /// display to that screen whole, so another screen of the same display scales it alike.
    static func rescaleRects(_ db: Database, sessionRowID: Int64, x: Double, y: Double) throws {
        try db.execute(sql: """
            UPDATE presentation SET \(Columns.rectX) = \(Columns.rectX) * ?, \(Columns.rectY) = \(Columns.rectY) * ?,
            \(Columns.rectWidth) = \(Columns.rectWidth) * ?, \(Columns.rectHeight) = \(Columns.rectHeight) * ?
            WHERE \(Columns.sessionRowID) = ? AND \(Columns.rectX) IS NOT NULL
            """, arguments: [x, y, x, y, sessionRowID])
    }

    /// A presentation's row values by column.
    private static func row(_ p: Presentation, sessionRowID: Int64) -> [Columns: (any DatabaseValueConvertible)?] {
        var ending: String?, reason: String?
        switch p.ending {
        case .finished?: ending = finished
        case .cutShort(let why)?: (ending, reason) = (cutShort, why)
        case nil: break
        }
        return [.sessionRowID: sessionRowID, .seq: p.index, .label: p.label, .kind: p.kind.rawValue, .fileName: p.fileName,
                .byteSize: p.byteSize, .sha256: p.sha256, .durationSeconds: p.durationSeconds, .frameRate: p.frameRate,
                .widthPixels: p.widthPixels, .heightPixels: p.heightPixels, .rectX: p.rect?.x, .rectY: p.rect?.y,
                .rectWidth: p.rect?.width, .rectHeight: p.rect?.height, .onset: p.onsetSeconds, .offset: p.offsetSeconds,
                .ending: ending, .endingReason: reason]
    }

    /// A session's presentations in index order, each with its events and playback samples in the
    /// order recorded. A stored value outside gazerec's vocabulary is damage (SQLite's corruption error).
    static func presentations(_ db: Database, sessionRowID: Int64) throws -> [Presentation] {
        var presentations = try Row.fetchAll(db, sql: """
            SELECT \(Columns.allCases.names) FROM presentation WHERE \(Columns.sessionRowID) = ? ORDER BY \(Columns.seq)
            """, arguments: [sessionRowID]).map(presentation)
        let position = Dictionary(presentations.indices.map { (presentations[$0].index, $0) }, uniquingKeysWith: { a, _ in a })
        let events = try Row.fetchCursor(db, sql: """
            SELECT \([EventColumns.presentation, .kind, .timestamp, .stimulusSeconds, .fromStimulusSeconds].names)
            FROM presentationEvent WHERE \(EventColumns.sessionRowID) = ? ORDER BY \(EventColumns.seq)
            """, arguments: [sessionRowID])
        while let row = try events.next() {
            guard let at = position[try row.decode(forColumn: EventColumns.presentation)],
                  let kind = PresentationEvent.Kind(rawValue: try row.decode(forColumn: EventColumns.kind)) else { throw damage }
            presentations[at].events.append(PresentationEvent(
                kind: kind, timestampSeconds: try row.decode(forColumn: EventColumns.timestamp),
                stimulusSeconds: try row.decode(forColumn: EventColumns.stimulusSeconds),
                fromStimulusSeconds: try row.decode(forColumn: EventColumns.fromStimulusSeconds)))
        }
        let samples = try Row.fetchCursor(db, sql: """
            SELECT \([PlaybackColumns.presentation, .timestamp, .stimulusSeconds].names)
            FROM playbackSample WHERE \(PlaybackColumns.sessionRowID) = ? ORDER BY \(PlaybackColumns.seq)
            """, arguments: [sessionRowID])
        while let row = try samples.next() {
            guard let at = position[try row.decode(forColumn: PlaybackColumns.presentation)] else { throw damage }
            presentations[at].playback.append(PlaybackSample(timestampSeconds: try row.decode(forColumn: PlaybackColumns.timestamp),
                                                             stimulusSeconds: try row.decode(forColumn: PlaybackColumns.stimulusSeconds)))
        }
        return presentations
    }

    private static var damage: DatabaseError {
        DatabaseError(resultCode: .SQLITE_CORRUPT, message: "a stored presentation is not what gazerec wrote")
    }

    /// One presentation row, without its events and playback samples.
    private static func presentation(_ row: Row) throws -> Presentation {
        guard let kind = Presentation.Kind(rawValue: try row.decode(forColumn: Columns.kind)) else { throw damage }
        var ending: Presentation.Ending?
        switch try row.decode(String?.self, forColumn: Columns.ending) {
        case finished?: ending = .finished
        case cutShort?: ending = .cutShort(reason: try row.decode(String?.self, forColumn: Columns.endingReason) ?? "")
        case nil: ending = nil
        default: throw damage
        }
        var rect: PresentationRect?
        if let x: Double = try row.decode(forColumn: Columns.rectX), let y: Double = try row.decode(forColumn: Columns.rectY),
           let width: Double = try row.decode(forColumn: Columns.rectWidth), let height: Double = try row.decode(forColumn: Columns.rectHeight) {
            rect = PresentationRect(x: x, y: y, width: width, height: height)
        }
        return Presentation(index: try row.decode(forColumn: Columns.seq), label: try row.decode(forColumn: Columns.label), kind: kind,
                            fileName: try row.decode(forColumn: Columns.fileName), byteSize: try row.decode(forColumn: Columns.byteSize),
                            sha256: try row.decode(forColumn: Columns.sha256), durationSeconds: try row.decode(forColumn: Columns.durationSeconds),
                            frameRate: try row.decode(forColumn: Columns.frameRate), widthPixels: try row.decode(forColumn: Columns.widthPixels),
                            heightPixels: try row.decode(forColumn: Columns.heightPixels), rect: rect,
                            onsetSeconds: try row.decode(forColumn: Columns.onset), offsetSeconds: try row.decode(forColumn: Columns.offset),
                            ending: ending)
    }

    /// Why a presentation still shown when its recorder died was ended by the repair.
    static let recorderDied = "the recorder stopped before it ended; the session's repair ended it at the session's last sample"

    /// Ends the presentations of a session that are still shown (no offset): at `atSeconds` (not
    /// before their onset), cut short for `reason`.
    static func endOpen(_ db: Database, sessionRowID: Int64, atSeconds: Double, reason: String) throws {
        try db.execute(sql: """
            UPDATE presentation SET \(Columns.offset) = MAX(\(Columns.onset), ?), \(Columns.ending) = ?, \(Columns.endingReason) = ?
            WHERE \(Columns.sessionRowID) = ? AND \(Columns.offset) IS NULL
            """, arguments: [atSeconds, cutShort, reason, sessionRowID])
    }

    /// Whether any of the sessions has a presentation.
    static func any(_ db: Database, sessionRowIDs: [Int64]) throws -> Bool {
        try sessionRowIDs.contains { rowid in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM presentation WHERE \(Columns.sessionRowID) = ?)", arguments: [rowid]) ?? false
        }
    }

    /// Deletes every presentation, event and playback sample of every session.
    static func deleteAll(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM presentation; DELETE FROM presentationEvent; DELETE FROM playbackSample")
    }
}

extension SessionDatabase {
    /// A session's presentations (what the presenter showed while recording it) in the order
    /// shown, each with its events and playback samples; empty for a session recorded without.
    public func presentations(id: String) throws -> [Presentation] {
        try read("read the presentations of session \(id)") { db in
            try PresentationTable.presentations(db, sessionRowID: try sessionRowID(db, id: id))
        }
    }
}
