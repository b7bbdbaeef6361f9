import Channels
import Foundation
import GazeModel
import GRDB
import GRDBSQLite
import JSONStream

/// How sessions are written out.
public struct ExportOptions: @unchecked Sendable {
    public var keyStyle: KeyStyle
    public var pretty: Bool
    /// Whether to write the `"gazerec"` extension object.
    public var includeExtension: Bool

    /// Extra members for the `"gazerec"` object computed at export time from the session's header
    /// and scan path (e.g. fixations).
    public var derivedExtension: ((SessionHeader, [GazeSample]) -> [(String, JSONValue)])?

    public init(keyStyle: KeyStyle = .camelCase, pretty: Bool = false, includeExtension: Bool = true,
                derivedExtension: ((SessionHeader, [GazeSample]) -> [(String, JSONValue)])? = nil) {
        self.derivedExtension = derivedExtension
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
        try Self.createFolder(directory)
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

    /// Creates `directory` and its missing parents, with errors that name the part in the way.
    public static func createFolder(_ directory: String) throws {
        var prefix = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            var info = stat()
            if stat(prefix, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw StoreError.io(action: "create the output folder", path: directory,
                                        reason: "\(prefix.hasPrefix("./") ? String(prefix.dropFirst(2)) : prefix) is a file, not a folder")
                }
                continue
            }
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw StoreError.io(action: "create the output folder", path: directory, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Writes a file through a temporary sibling and a rename, so readers never see half a file.
    public static func writeAtomically(to path: String, _ body: (FileByteSink) throws -> Void) throws {
        let temporary = path + ".tmp-\(getpid())"
        TemporaryFiles.register(temporary)
        defer { TemporaryFiles.unregister(temporary) }
        // Said of the file asked for, not of its temporary sibling.
        let folder = (path as NSString).deletingLastPathComponent.nonEmpty ?? "."
        var info = stat()
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StoreError.io(action: "write", path: path, reason: "the folder \(folder) does not exist")
        }
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw StoreError.io(action: "write", path: path, reason: "it is a folder")
        }
        do {
            let sink: FileByteSink
            do {
                sink = try FileByteSink(creating: temporary)
            } catch JSONError.io(_, _, let reason) {
                throw StoreError.io(action: "write", path: path, reason: reason)
            }
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
    private let fragments: SampleFragments?

    init(db: Database, json: JSONWriter, options: ExportOptions) throws {
        self.db = db
        self.json = json
        self.options = options
        fragments = options.pretty ? nil : SampleFragments(style: options.keyStyle)
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
        let series = try Row.fetchAll(db, sql: """
            SELECT rowid, name FROM blendShapeSeries WHERE sessionRowID = ? ORDER BY name
            """, arguments: [rowid]).map { (rowid: $0["rowid"] as Int64, name: $0["name"] as String) }

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

        // The reading thread is done with the connection once it has finished.
        channel.waitUntilFinished()
        if options.includeExtension { try writeExtension(header, sessionRowID: rowid) }
        try json.endObject()
    }

    /// The `"gazerec"` object: the stored members, then the frame series and blink events from their tables.
    private func writeExtension(_ header: SessionHeader, sessionRowID: Int64) throws {
        let frameCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM frameSample WHERE sessionRowID = ?",
                                          arguments: [sessionRowID]) ?? 0
        let blinks = try Row.fetchAll(db, sql: """
            SELECT start, end, eyes, kind, minimumOpenness FROM blinkEvent WHERE sessionRowID = ? ORDER BY seq
            """, arguments: [sessionRowID])
        let markers = try SampleTables.markers(db, sessionRowID: sessionRowID)
        var derived = try options.derivedExtension.map {
            $0(header, try SessionDatabase.scanPathSamples(db, sessionRowID: sessionRowID))
        } ?? []
        // Attention follows the stored data (a recalibration, a late marker): computed on every export.
        if frameCount > 0, let attention = try SessionDatabase.attention(db, sessionRowID: sessionRowID) {
            derived.insert(("attention", attention.jsonValue), at: 0)
        }
        guard header.gazerecExtension != nil || frameCount > 0 || !blinks.isEmpty || !markers.isEmpty || !derived.isEmpty else {
            return
        }
        try key(.gazerec)
        try json.beginObject()
        let stored = header.gazerecExtension?.jsonMembers ?? []
        // Derived members replace stored ones of the same name (an import of an earlier export).
        for (name, value) in stored where !derived.contains(where: { $0.0 == name }) {
            try json.key(name)
            try json.value(value)
        }
        for (name, value) in derived {
            try json.key(name)
            try json.value(value)
        }
        if frameCount > 0 {
            try json.key("frames")
            try json.beginArray()
            let statement = try db.makeStatement(sql: """
                SELECT sessionRowID, seq, timestamp, trackingState, confidence,
                       \(SampleTables.frameOptionalColumns.joined(separator: ", ")), appearance
                FROM frameSample WHERE sessionRowID = ? ORDER BY seq
                """)
            let handle = statement.sqliteStatement
            sqlite3_bind_int64(handle, 1, sessionRowID)
            defer { sqlite3_reset(handle) }
            while sqlite3_step(handle) == SQLITE_ROW {
                try json.element()
                try json.beginObject()
                try json.key("timestamp"); try json.number(sqlite3_column_double(handle, 2))
                try json.key("trackingState")
                try json.string(utf8: UnsafeBufferPointer(start: sqlite3_column_text(handle, 3),
                                                          count: Int(sqlite3_column_bytes(handle, 3))))
                try json.key("confidence"); try json.number(sqlite3_column_double(handle, 4))
                for (offset, name) in SampleTables.frameOptionalColumns.enumerated() {
                    let column = Int32(5 + offset)
                    guard sqlite3_column_type(handle, column) != SQLITE_NULL else { continue }
                    try json.key(name); try json.number(sqlite3_column_double(handle, column))
                }
                let appearanceColumn = Int32(5 + SampleTables.frameOptionalColumns.count)
                if sqlite3_column_type(handle, appearanceColumn) == SQLITE_BLOB,
                   let blob = sqlite3_column_blob(handle, appearanceColumn) {
                    try json.key("appearance")
                    try json.base64String(UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(handle, appearanceColumn))))
                }
                try json.endObject()
            }
            try json.endArray()
        }
        if !blinks.isEmpty {
            try json.key("blinks")
            try json.beginArray()
            for row in blinks {
                try json.element()
                try json.beginObject()
                try json.key("start"); try json.number(row["start"])
                try json.key("end"); try json.number(row["end"])
                try json.key("eyes"); try json.string(row["eyes"])
                try json.key("kind"); try json.string(row["kind"])
                try json.key("minimumOpenness"); try json.number(row["minimumOpenness"])
                try json.endObject()
            }
            try json.endArray()
        }
        if !markers.isEmpty {
            try json.key("markers")
            try json.beginArray()
            for marker in markers {
                try json.element()
                try json.beginObject()
                try json.key("timestamp"); try json.number(marker.timestampSeconds)
                try json.key("label"); try json.string(marker.label)
                if let data = marker.dataJSON, let value = try? JSONValue.parse(Array(data.utf8)) {
                    try json.key("data"); try json.value(value)
                }
                try json.endObject()
            }
            try json.endArray()
        }
        try json.endObject()
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

/// What the export's reading thread hands over: rows, or rows it already formatted.
enum ExportChunk {
    case rows(SampleBatch)
    case bytes([UInt8])
}

/// Formats sample batches as compact JSON array elements, with pre-rendered key fragments.
///
/// Each element is preceded by `,` except the first of its series, so formatted batches can be
/// concatenated between `[` and `]`. One instance per thread.
final class CompactSampleFormatter {
    private let fragments: SampleFragments
    private let blendPrefixes: [Int64: [UInt8]]
    private let sink = MemoryByteSink()
    private let writer: JSONWriter

    init(fragments: SampleFragments, seriesNames: [Int64: String]) throws {
        self.fragments = fragments
        blendPrefixes = try seriesNames.mapValues { try fragments.blendPrefix(name: $0) }
        writer = JSONWriter(sink: sink)
    }

    func format(_ batch: SampleBatch) throws -> [UInt8] {
        sink.reset()
        let prefix = batch.table == .gaze ? fragments.gazeTimestamp : blendPrefixes[batch.ownerRowID]!
        for index in 0..<batch.count {
            if batch.firstSeq + index > 0 { try writer.byte(0x2C) }
            try fragment(prefix)
            if batch.table == .gaze {
                try writer.number(batch.timestamps[index])
                try fragment(fragments.gazeX); try writer.number(batch.first[index])
                try fragment(fragments.gazeY); try writer.number(batch.second[index])
            } else {
                try writer.number(batch.first[index])
                try fragment(fragments.blendTimestamp); try writer.number(batch.timestamps[index])
            }
            try fragment(fragments.orientation); try writer.integer(batch.orientations[index])
            if let state = batch.trackingStates[index] { try fragment(fragments.trackingState); try writer.string(state) }
            try writer.byte(0x7D)
        }
        try writer.flush()
        return sink.bytes
    }

    private func fragment(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBufferPointer { try writer.rawBytes($0) }
    }
}

/// Steps the sample queries on the export's reading thread and sends column batches,
/// each series ended by a `nil`.
final class SeriesReader: @unchecked Sendable {
    private let connection: SQLiteConnection
    private let gaze: SQLiteStatement
    private let blend: SQLiteStatement
    private let channel: BoundedChannel<ExportChunk?>
    private let formatter: CompactSampleFormatter?
    private var batchCounter = 0
    private(set) var failure: DatabaseError?
    /// Set when the consumer cancelled: the remaining series are not read.
    private var stopped = false

    init(connection: SQLiteConnection, gaze: SQLiteStatement, blend: SQLiteStatement,
         channel: BoundedChannel<ExportChunk?>, formatter: CompactSampleFormatter?) {
        self.formatter = formatter
        self.connection = connection
        self.gaze = gaze
        self.blend = blend
        self.channel = channel
    }

    func read(_ table: SampleBatch.Table, ownerRowID: Int64) {
        guard failure == nil, !stopped else { return }
        let statement = table == .gaze ? gaze : blend
        defer { sqlite3_reset(statement) }
        sqlite3_reset(statement)
        sqlite3_bind_int64(statement, 1, ownerRowID)
        // Gaze columns: timestamp, x, y, orientation, state. Blend: timestamp, value, orientation, state.
        let orientationColumn: Int32 = table == .gaze ? 3 : 2
        var seq = 0
        var batch = SampleBatch(table: table, ownerRowID: ownerRowID, firstSeq: 0, capacity: SampleInserter.batchSize)
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                failure = DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
                return
            }
            batch.timestamps.append(sqlite3_column_double(statement, 0))
            batch.first.append(sqlite3_column_double(statement, 1))
            if table == .gaze { batch.second.append(sqlite3_column_double(statement, 2)) }
            batch.orientations.append(sqlite3_column_int64(statement, orientationColumn))
            let stateColumn = orientationColumn + 1
            batch.trackingStates.append(sqlite3_column_type(statement, stateColumn) == SQLITE_NULL
                                        ? nil : String(cString: sqlite3_column_text(statement, stateColumn)))
            seq += 1
            if batch.count == SampleInserter.batchSize {
                guard send(batch) else { stopped = true; return }
                batch = SampleBatch(table: table, ownerRowID: ownerRowID, firstSeq: seq, capacity: SampleInserter.batchSize)
            }
        }
        if batch.count > 0, !send(batch) { stopped = true; return }
        if !channel.send(nil) { stopped = true }
    }

    /// Sends every third batch formatted (when formatting; SQLite is the other third of this
    /// thread's share), the rest as rows for the consumer.
    private func send(_ batch: SampleBatch) -> Bool {
        batchCounter += 1
        if let formatter, batchCounter % 3 == 0, let bytes = try? formatter.format(batch) {
            return channel.send(.bytes(bytes))
        }
        return channel.send(.rows(batch))
    }
}

/// Compact-output fragments around sample values, e.g. `{"timestamp":` and `,"x":`, in one key style.
struct SampleFragments {
    let gazeTimestamp, gazeX, gazeY, orientation, trackingState: [UInt8]
    let blendLocation, blendValue, blendTimestamp: [UInt8]

    init(style: KeyStyle) {
        func key(_ key: SessionKey, first: Bool = false) -> [UInt8] {
            Array((first ? "{\"" : ",\"").utf8) + Array(key.spelling(style).description.utf8) + Array("\":".utf8)
        }
        gazeTimestamp = key(.timestamp, first: true)
        gazeX = key(.x)
        gazeY = key(.y)
        orientation = key(.orientation)
        trackingState = key(.trackingState)
        blendLocation = key(.blendShapeLocation, first: true)
        blendValue = key(.value)
        blendTimestamp = key(.timestamp)
    }

    /// `{"blendShapeLocation":"<name>","value":` for one series.
    func blendPrefix(name: String) throws -> [UInt8] {
        let sink = MemoryByteSink()
        let writer = JSONWriter(sink: sink)
        try writer.string(name)
        try writer.flush()
        return blendLocation + sink.bytes + blendValue
    }
}
