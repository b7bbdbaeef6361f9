import Channels
import Foundation
import GazeModel
import GRDB
import JSONStream

/// How sessions are written out.
public struct ExportOptions: Sendable {
    public var keyStyle: KeyStyle
    public var pretty: Bool
    /// Whether to write the `"gazerec"` extension object.
    public var includeExtension: Bool

    /// Whether to add fixations and movement labels to the `"gazerec"` object, found at export
    /// time in the session's scan path by its default detector (`SessionHeader.fixationScale`).
    public var fixations: Bool

    public init(keyStyle: KeyStyle = .camelCase, pretty: Bool = false, includeExtension: Bool = true,
                fixations: Bool = false) {
        self.fixations = fixations
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
    /// The same stored session always produces the same bytes. A damaged session throws
    /// `StoreError.damagedSession` after part of it was written (its rows are checked as they
    /// are read): the caller takes the bytes back (`SessionExport` does).
    public func export(ids: [String], asArray: Bool, to sink: ByteSink, options: ExportOptions = .init()) throws {
        try readVerifying("export sessions") { db in
            let rowids = try ids.map { try sessionRowID(db, id: $0) }
            let json = JSONWriter(sink: sink, pretty: options.pretty)
            let exporter = try SessionExporter(db: db, json: json, options: options, database: self)
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

/// Writes stored sessions as JSON straight from SQLite cursors.
final class SessionExporter {
    private let db: Database
    private let json: JSONWriter
    private let options: ExportOptions
    private let gazeStatement: Statement
    private let blendStatement: Statement
    private let fragments: SampleFragments?
    /// The database read: a saved video's path is exported resolved against its folder.
    private let database: SessionDatabase

    init(db: Database, json: JSONWriter, options: ExportOptions, database: SessionDatabase) throws {
        self.db = db
        self.database = database
        self.json = json
        self.options = options
        fragments = options.pretty ? nil : SampleFragments(style: options.keyStyle)
        gazeStatement = try db.makeStatement(sql: GazeSampleTable.orderedSelectSQL)
        blendStatement = try db.makeStatement(sql: BlendShapeTable.orderedSelectSQL)
    }

    private func key(_ key: SessionKey) throws { try json.key(key.spelling(options.keyStyle)) }

    /// Writes one session, its stored rows checked as they are read (`SessionDatabase.verifying`):
    /// throws `DamageFound` after writing part of a damaged one, which the caller must take back.
    func writeSession(rowid: Int64) throws {
        // The header is read inside the check: a value in it no reader can take is the session's damage.
        let id = try SessionTable.id(db, rowid: rowid) ?? String(rowid)
        try SessionDatabase.verifying(db, id: id, sessionRowID: rowid) {
            let header = try SessionTable.header(db, rowid: rowid)
            try json.beginObject()
            try writeHeader(header)
            var tally = try writeSamples(sessionRowID: rowid)
            if options.includeExtension { tally.merge(try writeExtension(header, sessionRowID: rowid)) { $1 } }
            try json.endObject()
            return tally
        }
    }

    /// `scanPath` and `blendShapes`; returns the rows read per series.
    private func writeSamples(sessionRowID rowid: Int64) throws -> SequenceTable.Tally {
        let series = try BlendShapeTable.series(db, sessionRowID: rowid)

        // SQLite steps on a second thread, which also formats every other batch (compact output);
        // this thread formats the rest and writes everything in order.
        let channel = BoundedChannel<ExportChunk?>()
        let names = Dictionary(uniqueKeysWithValues: series.map { ($0.rowid, $0.name) })
        let reader = SeriesReader(connection: db.sqliteConnection!, gaze: gazeStatement.sqliteStatement,
                                  blend: blendStatement.sqliteStatement, channel: channel,
                                  formatter: try fragments.map { try CompactSampleFormatter(fragments: $0, seriesNames: names) })
        let formatter = try fragments.map { try CompactSampleFormatter(fragments: $0, seriesNames: names) }
        let thread = Thread {
            reader.read(.gaze, ownerRowID: rowid)
            for entry in series { reader.read(.blendShape, ownerRowID: entry.rowid) }
            channel.finish(throwing: reader.failure)
        }
        thread.start()
        defer {
            channel.cancel()
            channel.waitUntilFinished()
        }

        try key(.scanPath)
        try json.beginArray()
        while let chunk = try channel.receive(), let chunk {
            try write(chunk, formatter: formatter, name: "")
        }
        try json.endArray()
        try key(.blendShapes)
        try json.beginObject()
        for entry in series {
            try json.key(entry.name)
            try json.beginArray()
            while let chunk = try channel.receive(), let chunk {
                try write(chunk, formatter: formatter, name: entry.name)
            }
            try json.endArray()
        }
        try json.endObject()
        // The reading thread is done with the connection (and its tally) once it has finished.
        channel.waitUntilFinished()
        return reader.tally
    }

    /// The members before the samples: id, appID, beginTime, endTime, deviceInfo.
    private func writeHeader(_ header: SessionHeader) throws {
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
    }

    /// The `"gazerec"` object, through its codec: the stored members, those derived now, then the
    /// frame series, blink events and markers from their tables. Returns the rows read per series.
    private func writeExtension(_ header: SessionHeader, sessionRowID: Int64) throws -> SequenceTable.Tally {
        let hasFrames = try FrameTable.span(db, sessionRowID: sessionRowID).count > 0
        let blinks = try BlinkTable.records(db, sessionRowID: sessionRowID)
        let markers = try MarkerTable.markers(db, sessionRowID: sessionRowID)
        var tally: SequenceTable.Tally = [.table("blinkEvent"): blinks.count, .table("marker"): markers.count]
        let content = StoredSessionExtension(
            stored: database.resolvingVideoPath(header.gazerecExtension),
            // Attention follows the stored data (a recalibration, a late marker): computed on every export.
            attention: hasFrames ? try AttentionReader.report(db, sessionRowID: sessionRowID) : nil,
            movement: options.fixations
                ? ExportedMovement(scanPath: try GazeSampleTable.samples(db, sessionRowID: sessionRowID), of: header) : nil,
            hasFrames: hasFrames, blinks: blinks, markers: markers,
            hasExpressions: try ExpressionTable.count(db, sessionRowID: sessionRowID) > 0,
            presentations: try PresentationTable.presentations(db, sessionRowID: sessionRowID))
        guard !content.isEmpty else { return tally }
        try key(.gazerec)
        try SessionExtensionCodec.write(content, to: json) { body in
            let statement = try FrameTable.makeOrderedStatement(db)
            let row = StoredFrameRow(handle: statement.sqliteStatement)
            tally[.table("frameSample")] = try SequenceTable.forEachRow(statement, ownerRowID: sessionRowID) { try body(row) }
        } forEachExpression: { body in
            let statement = try ExpressionTable.makeOrderedStatement(db)
            let row = StoredExpressionRow(handle: statement.sqliteStatement)
            tally[.table("expressionSample")] = try SequenceTable.forEachRow(statement, ownerRowID: sessionRowID) { try body(row) }
        }
        return tally
    }

    /// Writes one chunk: bytes already formatted, or rows formatted here.
    private func write(_ chunk: ExportChunk, formatter: CompactSampleFormatter?, name: String) throws {
        switch chunk {
        case .bytes(let bytes):
            try bytes.withUnsafeBufferPointer { try json.rawBytes($0) }
        case .rows(let batch):
            if let formatter {
                try formatter.format(batch).withUnsafeBufferPointer { try json.rawBytes($0) }
                return
            }
            for index in 0..<batch.count {
                if batch.table == .gaze { try writeGaze(batch, index) } else { try writeBlendShape(batch, index, name: name) }
            }
        }
    }

    /// One gaze sample through the structured (pretty) writer.
    private func writeGaze(_ batch: SampleBatch, _ index: Int) throws {
        try json.element()
        try json.beginObject()
        try key(.timestamp); try json.number(batch.timestamps[index])
        try key(.x); try json.number(batch.first[index])
        try key(.y); try json.number(batch.second[index])
        try key(.orientation); try json.integer(batch.orientations[index])
        if let state = batch.trackingStates[index] { try key(.trackingState); try json.string(state) }
        try json.endObject()
    }

    /// One blend-shape sample through the structured (pretty) writer.
    private func writeBlendShape(_ batch: SampleBatch, _ index: Int, name: String) throws {
        try json.element()
        try json.beginObject()
        try key(.blendShapeLocation); try json.string(name)
        try key(.value); try json.number(batch.first[index])
        try key(.timestamp); try json.number(batch.timestamps[index])
        try key(.orientation); try json.integer(batch.orientations[index])
        if let state = batch.trackingStates[index] { try key(.trackingState); try json.string(state) }
        try json.endObject()
    }
}
