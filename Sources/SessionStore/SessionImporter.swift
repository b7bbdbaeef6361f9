import Foundation
import GazeModel
import GRDB
import GRDBSQLite
import JSONStream

/// What to do when an imported session's id is already stored.
public enum ExistingSessionPolicy: Sendable {
    /// Refuse the whole import.
    case fail
    /// Delete the stored session and store the imported one.
    case replace
    /// Keep the stored session and ignore the imported one.
    case skip
}

/// How keys of imported documents are read.
public enum ImportKeyStyle: Sendable {
    /// Accept camelCase and snake_case keys alike.
    case detect
    /// Accept snake_case keys only (`--snake-case`).
    case snakeCase
}

/// What an import did.
public struct ImportReport: Sendable, Equatable {
    public var imported: [String] = []
    public var replaced: [String] = []
    public var skipped: [String] = []
    public var gazeSamples = 0
    public var blendShapeSamples = 0
}

extension SessionDatabase {
    /// Imports every session of every source in one transaction: all of them, or nothing.
    ///
    /// Each source holds one session object or an array of them, in the iOS EyeTracking format.
    /// Samples stream from the file into the tables, so memory stays flat however long a session is.
    public func importSessions(
        from sources: [JSONSource], keyStyle: ImportKeyStyle = .detect, existing: ExistingSessionPolicy = .fail
    ) throws -> ImportReport {
        try guarded("import sessions") {
            try writer.write { db in
                let importer = try SessionImporter(db: db, keyStyle: keyStyle, existing: existing)
                defer { importer.finish() }
                for source in sources {
                    try importer.importDocument(source)
                }
                try importer.inserter.drain()
                return importer.report
            }
        }
    }
}

/// Walks session documents and streams them into the tables of an open write transaction.
final class SessionImporter {
    private let db: Database
    private let existing: ExistingSessionPolicy
    private(set) var report = ImportReport()
    private var seenIDs: [String: String] = [:]
    private var placeholderCounter = 0

    private let sessionKeys: (KeyTable, [SessionKey])
    private let gazeKeys: (KeyTable, [SessionKey])
    private let blendKeys: (KeyTable, [SessionKey])
    private let deviceKeys: (KeyTable, [SessionKey])

    private let insertGaze: Statement
    private let insertBlend: Statement
    /// Inserts samples on a second thread while this one parses.
    let inserter: SampleInserter

    /// Whether only snake_case keys are read.
    private let snakeCaseOnly: Bool

    /// The sentence for a required key that is missing, in the spelling the reader looked for.
    func missingKey(_ key: SessionKey) -> String {
        snakeCaseOnly
            ? "missing required key '\(key.snake)' (keys were read as snake_case only; a camelCase file spells it '\(key.camel)')"
            : "missing required key '\(key.camel)' (or '\(key.snake)')"
    }

    init(db: Database, keyStyle: ImportKeyStyle, existing: ExistingSessionPolicy) throws {
        self.db = db
        snakeCaseOnly = keyStyle == .snakeCase
        self.existing = existing
        let styles: [KeyStyle] = keyStyle == .detect ? [.camelCase, .snakeCase] : [.snakeCase]
        sessionKeys = SessionKey.table(
            [.id, .appID, .beginTime, .endTime, .scanPath, .blendShapes, .deviceInfo, .gazerec], styles: styles)
        gazeKeys = SessionKey.table([.timestamp, .x, .y, .orientation, .trackingState], styles: styles)
        blendKeys = SessionKey.table(
            [.blendShapeLocation, .value, .timestamp, .orientation, .trackingState], styles: styles)
        deviceKeys = SessionKey.table([.model, .screenSize, .systemName, .systemVersion], styles: styles)
        insertGaze = try db.makeStatement(sql: SampleTables.insertGaze)
        insertBlend = try db.makeStatement(sql: SampleTables.insertBlendShape)
        inserter = SampleInserter(connection: db.sqliteConnection!, gazeStatement: insertGaze.sqliteStatement,
                                  blendStatement: insertBlend.sqliteStatement)
    }

    /// Stops the insert thread; call before leaving the transaction, on every path.
    func finish() { inserter.stop() }

    // MARK: - Documents

    func importDocument(_ source: JSONSource) throws {
        let reader = try JSONReader(source: source)
        guard let first = try reader.peek() else {
            throw reader.error("the file is empty; expected a session object or an array of sessions")
        }
        switch first {
        case 0x7B:
            try importSession(reader, source: source)
        case 0x5B:
            try reader.expect(0x5B, "'['")
            if !(try reader.consume(0x5D)) {
                var index = 0
                repeat {
                    reader.path.append(.index(index))
                    try importSession(reader, source: source)
                    reader.path.removeLast()
                    index += 1
                } while try reader.nextSeparator(close: 0x5D)
            }
        default:
            throw reader.error("not EyeTracking JSON: the file begins \(try reader.describeStart()); expected a session object "
                               + "or an array of sessions, as gazerec export writes them")
        }
        guard try reader.atEnd() else {
            throw reader.error("unexpected data after the end of the JSON document")
        }
    }

    // MARK: - Session

    private func importSession(_ reader: JSONReader, source: JSONSource) throws {
        guard try reader.peek() == 0x7B else {
            throw reader.error("expected a session object, found \(try reader.describeNext())")
        }
        try reader.expect(0x7B, "'{'")
        // Samples may come before the id, so they go under a placeholder row renamed at the end.
        placeholderCounter += 1
        try inserter.drain()
        try db.execute(sql: """
            INSERT INTO session (id, appID, beginTime, deviceModel, screenWidth, screenHeight, systemName, systemVersion)
            VALUES (?, '', 0, '', 0, 0, '', '')
            """, arguments: ["\u{1}import-\(placeholderCounter)"])
        let rowid = db.lastInsertedRowID

        var id: String?
        var appID: String?
        var beginTime: Double?
        var endTime: Double?
        var device: DeviceInfo?
        var extensionJSON: String?
        var seen = Set<SessionKey>()
        var sawScanPath = false
        var sawBlendShapes = false

        if !(try reader.consume(0x7D)) {
            repeat {
                let index = try reader.readKey(matching: sessionKeys.0)
                reader.path.append(.key(reader.lastKey))
                if let index {
                    let key = sessionKeys.1[index]
                    guard seen.insert(key).inserted else { throw reader.error("duplicate key") }
                    switch key {
                    case .id:
                        let text = try reader.readString()
                        guard let uuid = UUID(uuidString: text) else {
                            throw reader.error("'\(text)' is not a UUID string such as 3BE54760-F1E8-4799-A3CB-78806270E72A")
                        }
                        id = uuid.uuidString
                    case .appID:
                        appID = try reader.readString()
                    case .beginTime:
                        beginTime = try reader.readNumber()
                    case .endTime:
                        endTime = try reader.consumeNull() ? nil : try reader.readNumber()
                    case .deviceInfo:
                        device = try readDeviceInfo(reader)
                    case .scanPath:
                        sawScanPath = true
                        report.gazeSamples += try readScanPath(reader, sessionRowID: rowid)
                    case .blendShapes:
                        sawBlendShapes = true
                        report.blendShapeSamples += try readBlendShapes(reader, sessionRowID: rowid)
                    case .gazerec:
                        extensionJSON = try readExtension(reader, sessionRowID: rowid)
                    default:
                        try reader.skipValue()
                    }
                } else {
                    try reader.skipValue()
                }
                reader.path.removeLast()
            } while try reader.nextSeparator(close: 0x7D)
        }

        // Required keys, in the order the format lists them.
        func missing(_ key: SessionKey) -> JSONError {
            reader.error(missingKey(key))
        }
        guard let id else { throw missing(.id) }
        guard let appID else { throw missing(.appID) }
        guard let beginTime else { throw missing(.beginTime) }
        guard let device else { throw missing(.deviceInfo) }
        guard sawScanPath else { throw missing(.scanPath) }
        guard sawBlendShapes else { throw missing(.blendShapes) }
        try inserter.drain()

        if let first = seenIDs[id] {
            throw StoreError.duplicateInImport(id: id, source: source.displayName, firstSource: first)
        }
        seenIDs[id] = source.displayName

        if let stored = try SessionDatabase.rowid(db, id: id, allowPrefix: false) {
            switch existing {
            case .fail:
                throw StoreError.sessionExists(id: id, source: source.displayName)
            case .skip:
                try db.execute(sql: "DELETE FROM session WHERE rowid = ?", arguments: [rowid])
                report.skipped.append(id)
                return
            case .replace:
                try db.execute(sql: "DELETE FROM session WHERE rowid = ?", arguments: [stored])
                report.replaced.append(id)
            }
        } else {
            report.imported.append(id)
        }
        try db.execute(sql: """
            UPDATE session SET id = ?, appID = ?, beginTime = ?, endTime = ?, deviceModel = ?,
                screenWidth = ?, screenHeight = ?, systemName = ?, systemVersion = ?, extensionJSON = ?, interrupted = ?
            WHERE rowid = ?
            """, arguments: [id, appID, beginTime, endTime, device.model, device.screenWidth, device.screenHeight,
                             device.systemName, device.systemVersion, extensionJSON,
                             SessionExtension(storedText: extensionJSON)?.interrupted == true, rowid])
    }

    private func readDeviceInfo(_ reader: JSONReader) throws -> DeviceInfo {
        try reader.expect(0x7B, "an object")
        var model: String?
        var size: (Double, Double)?
        var systemName: String?
        var systemVersion: String?
        if !(try reader.consume(0x7D)) {
            repeat {
                let index = try reader.readKey(matching: deviceKeys.0)
                reader.path.append(.key(reader.lastKey))
                switch index.map({ deviceKeys.1[$0] }) {
                case .model?: model = try reader.readString()
                case .systemName?: systemName = try reader.readString()
                case .systemVersion?: systemVersion = try reader.readString()
                case .screenSize?:
                    try reader.expect(0x5B, "an array [width, height]")
                    reader.path.append(.index(0))
                    let width = try reader.readNumber()
                    reader.path.removeLast()
                    try reader.expect(0x2C, "',' and the height: screenSize is [width, height]")
                    reader.path.append(.index(1))
                    let height = try reader.readNumber()
                    reader.path.removeLast()
                    try reader.expect(0x5D, "']': screenSize is [width, height]")
                    size = (width, height)
                default:
                    try reader.skipValue()
                }
                reader.path.removeLast()
            } while try reader.nextSeparator(close: 0x7D)
        }
        func missing(_ key: SessionKey) -> JSONError { reader.error(missingKey(key)) }
        guard let model else { throw missing(.model) }
        guard let size else { throw missing(.screenSize) }
        guard let systemName else { throw missing(.systemName) }
        guard let systemVersion else { throw missing(.systemVersion) }
        return DeviceInfo(model: model, screenWidth: size.0, screenHeight: size.1,
                          systemName: systemName, systemVersion: systemVersion)
    }

    // MARK: - The "gazerec" extension

    /// Reads the extension object: `frames` and `blinks` stream into their tables, the other
    /// members are kept as compact JSON (returned).
    private func readExtension(_ reader: JSONReader, sessionRowID: Int64) throws -> String {
        guard try reader.peek() == 0x7B else { throw reader.error("expected an object, found \(try reader.describeNext())") }
        try reader.expect(0x7B, "'{'")
        var members: [(String, JSONValue)] = []
        var seenFrames = false, seenBlinks = false, seenMarkers = false
        if !(try reader.consume(0x7D)) {
            repeat {
                let key = try reader.readString("a key in double quotes")
                try reader.expect(0x3A, "':' after a key")
                reader.path.append(.key(key))
                switch key {
                case "frames" where !seenFrames:
                    seenFrames = true
                    try inserter.drain()
                    try readFrames(reader, sessionRowID: sessionRowID)
                case "blinks" where !seenBlinks:
                    seenBlinks = true
                    try inserter.drain()
                    try readBlinks(reader, sessionRowID: sessionRowID)
                case "markers" where !seenMarkers:
                    seenMarkers = true
                    try inserter.drain()
                    try readMarkers(reader, sessionRowID: sessionRowID)
                default:
                    guard !members.contains(where: { $0.0 == key }) else { throw reader.error("duplicate key") }
                    members.append((key, try reader.readValue()))
                }
                reader.path.removeLast()
            } while try reader.nextSeparator(close: 0x7D)
        }
        // Through the extension's codec, as every stored extension is written.
        return SessionExtension(json: .object(members))!.storedText
    }

    private func readFrames(_ reader: JSONReader, sessionRowID: Int64) throws {
        try reader.expect(0x5B, "an array of frames")
        if try reader.consume(0x5D) { return }
        let names = ["timestamp", "trackingState", "confidence"] + SampleTables.frameOptionalColumns + ["appearance"]
        let appearanceKey = names.count - 1
        let keys = KeyTable(names)
        var seq = 0
        repeat {
            reader.path.append(.index(seq))
            try reader.expect(0x7B, "a frame object")
            var timestamp = Double.nan, state = "", confidence = Double.nan
            var optional = [Double?](repeating: nil, count: SampleTables.frameOptionalColumns.count)
            var appearance: EyeAppearance?
            if !(try reader.consume(0x7D)) {
                repeat {
                    let index = try reader.readKey(matching: keys)
                    reader.path.append(.key(reader.lastKey))
                    switch index {
                    case 0?: timestamp = try reader.readNumber()
                    case 1?: state = try reader.readString()
                    case 2?: confidence = try reader.readNumber()
                    case appearanceKey?:
                        guard !(try reader.consumeNull()) else { break }
                        let text = try reader.readString()
                        guard let data = Data(base64Encoded: text) else { throw reader.error("not base64 text") }
                        do {
                            appearance = try SampleTables.appearance(data)
                        } catch let error as FrameColumnError {
                            throw reader.error(error.reason)
                        }
                    case let column?: optional[column - 3] = try reader.consumeNull() ? nil : try reader.readNumber()
                    case nil: try reader.skipValue()
                    }
                    reader.path.removeLast()
                } while try reader.nextSeparator(close: 0x7D)
            }
            guard !timestamp.isNaN else { throw reader.error("missing required key 'timestamp'") }
            guard !state.isEmpty else { throw reader.error("missing required key 'trackingState'") }
            guard !confidence.isNaN else { throw reader.error("missing required key 'confidence'") }
            let frame: FrameMeasurement
            do {
                frame = try SampleTables.frame(timestamp: timestamp, state: state, confidence: confidence, optional: optional,
                                               appearance: appearance)
            } catch let error as FrameColumnError {
                throw reader.error(error.reason)
            }
            try SampleTables.insert(frame, sessionRowID: sessionRowID, seq: seq, db: db)
            reader.path.removeLast()
            seq += 1
        } while try reader.nextSeparator(close: 0x5D)
    }

    private func readBlinks(_ reader: JSONReader, sessionRowID: Int64) throws {
        try reader.expect(0x5B, "an array of blink events")
        if try reader.consume(0x5D) { return }
        let keys = KeyTable(["start", "end", "eyes", "kind", "minimumOpenness"])
        var seq = 0
        repeat {
            reader.path.append(.index(seq))
            try reader.expect(0x7B, "a blink object")
            var start: Double?, end: Double?, eyes: String?, kind: String?, minimum: Double?
            if !(try reader.consume(0x7D)) {
                repeat {
                    let index = try reader.readKey(matching: keys)
                    reader.path.append(.key(reader.lastKey))
                    switch index {
                    case 0?: start = try reader.readNumber()
                    case 1?: end = try reader.readNumber()
                    case 2?: eyes = try reader.readString()
                    case 3?: kind = try reader.readString()
                    case 4?: minimum = try reader.readNumber()
                    default: try reader.skipValue()
                    }
                    reader.path.removeLast()
                } while try reader.nextSeparator(close: 0x7D)
            }
            guard let start, let end, let eyes, let kind, let minimum else {
                throw reader.error("a blink needs start, end, eyes, kind and minimumOpenness")
            }
            guard let blinkEyes = BlinkEyes(rawValue: eyes) else {
                throw reader.error("unknown eyes '\(eyes)' (expected both, left or right)")
            }
            guard let blinkKind = BlinkEvent.Kind(rawValue: kind) else {
                throw reader.error("unknown kind '\(kind)' (expected blink or longClosure)")
            }
            let event = BlinkEvent(startSeconds: start, endSeconds: end, eyes: blinkEyes, kind: blinkKind,
                                   minimumOpenness: minimum)
            try SampleTables.insert(event, sessionRowID: sessionRowID, seq: seq, db: db)
            reader.path.removeLast()
            seq += 1
        } while try reader.nextSeparator(close: 0x5D)
    }

    private func readMarkers(_ reader: JSONReader, sessionRowID: Int64) throws {
        try reader.expect(0x5B, "an array of markers")
        if try reader.consume(0x5D) { return }
        let keys = KeyTable(["timestamp", "label", "data"])
        var seq = 0
        repeat {
            reader.path.append(.index(seq))
            try reader.expect(0x7B, "a marker object")
            var timestamp: Double?, label: String?, data: String?
            if !(try reader.consume(0x7D)) {
                repeat {
                    let index = try reader.readKey(matching: keys)
                    reader.path.append(.key(reader.lastKey))
                    switch index {
                    case 0?: timestamp = try reader.readNumber()
                    case 1?: label = try reader.readString()
                    case 2?: data = try reader.readValue().compactText
                    default: try reader.skipValue()
                    }
                    reader.path.removeLast()
                } while try reader.nextSeparator(close: 0x7D)
            }
            guard let timestamp, let label else { throw reader.error("a marker needs timestamp and label") }
            try SampleTables.insert(Marker(timestampSeconds: timestamp, label: label, dataJSON: data),
                                    sessionRowID: sessionRowID, seq: seq, db: db)
            reader.path.removeLast()
            seq += 1
        } while try reader.nextSeparator(close: 0x5D)
    }

    // MARK: - Samples

    /// Reads `trackingState`: a string, or null (same as absent).
    private func readTrackingState(_ reader: JSONReader) throws -> String? {
        try reader.consumeNull() ? nil : try reader.readString()
    }

    private func readScanPath(_ reader: JSONReader, sessionRowID: Int64) throws -> Int {
        try reader.expect(0x5B, "an array of gaze samples")
        if try reader.consume(0x5D) { return 0 }
        var seq = 0
        var batch = SampleBatch(table: .gaze, ownerRowID: sessionRowID, firstSeq: 0, capacity: SampleInserter.batchSize)
        repeat {
            reader.path.append(.index(seq))
            try reader.expect(0x7B, "a gaze sample object")
            var timestamp: Double?, x: Double?, y: Double?, orientation: Int?, state: String?
            if !(try reader.consume(0x7D)) {
                repeat {
                    let index = try reader.readKey(matching: gazeKeys.0)
                    reader.path.append(.key(reader.lastKey))
                    switch index.map({ gazeKeys.1[$0] }) {
                    case .timestamp?: timestamp = try reader.readNumber()
                    case .x?: x = try reader.readNumber()
                    case .y?: y = try reader.readNumber()
                    case .orientation?: orientation = try reader.readInteger()
                    case .trackingState?: state = try readTrackingState(reader)
                    default: try reader.skipValue()
                    }
                    reader.path.removeLast()
                } while try reader.nextSeparator(close: 0x7D)
            }
            func missing(_ key: SessionKey) -> JSONError { reader.error(missingKey(key)) }
            guard let timestamp else { throw missing(.timestamp) }
            guard let x else { throw missing(.x) }
            guard let y else { throw missing(.y) }
            guard let orientation else { throw missing(.orientation) }

            batch.timestamps.append(timestamp)
            batch.first.append(x)
            batch.second.append(y)
            batch.orientations.append(Int64(orientation))
            batch.trackingStates.append(state)
            reader.path.removeLast()
            seq += 1
            if batch.count == SampleInserter.batchSize {
                try inserter.submit(batch)
                batch = SampleBatch(table: .gaze, ownerRowID: sessionRowID, firstSeq: seq, capacity: SampleInserter.batchSize)
            }
        } while try reader.nextSeparator(close: 0x5D)
        if batch.count > 0 { try inserter.submit(batch) }
        return seq
    }

    private func readBlendShapes(_ reader: JSONReader, sessionRowID: Int64) throws -> Int {
        try reader.expect(0x7B, "an object of blend-shape series")
        if try reader.consume(0x7D) { return 0 }
        var total = 0
        var names = Set<String>()
        repeat {
            let name = try reader.readString("a blend-shape name in double quotes")
            try reader.expect(0x3A, "':' after a key")
            reader.path.append(.key(name))
            guard !name.isEmpty else { throw reader.error("empty blend-shape name") }
            guard names.insert(name).inserted else { throw reader.error("duplicate blend-shape series") }
            try inserter.drain()
            try db.execute(sql: "INSERT INTO blendShapeSeries (sessionRowID, name) VALUES (?, ?)",
                           arguments: [sessionRowID, name])
            let seriesRowID = db.lastInsertedRowID
            try reader.expect(0x5B, "an array of blend-shape samples")
            var seq = 0
            var batch = SampleBatch(table: .blendShape, ownerRowID: seriesRowID, firstSeq: 0,
                                    capacity: SampleInserter.batchSize)
            if !(try reader.consume(0x5D)) {
                repeat {
                    reader.path.append(.index(seq))
                    try reader.expect(0x7B, "a blend-shape sample object")
                    var location: String?, value: Double?, timestamp: Double?, orientation: Int?, state: String?
                    if !(try reader.consume(0x7D)) {
                        repeat {
                            let index = try reader.readKey(matching: blendKeys.0)
                            reader.path.append(.key(reader.lastKey))
                            switch index.map({ blendKeys.1[$0] }) {
                            case .blendShapeLocation?:
                                let text = try reader.readString()
                                guard text == name else {
                                    throw reader.error("'\(text)' differs from its series key '\(name)'")
                                }
                                location = text
                            case .value?: value = try reader.readNumber()
                            case .timestamp?: timestamp = try reader.readNumber()
                            case .orientation?: orientation = try reader.readInteger()
                            case .trackingState?: state = try readTrackingState(reader)
                            default: try reader.skipValue()
                            }
                            reader.path.removeLast()
                        } while try reader.nextSeparator(close: 0x7D)
                    }
                    func missing(_ key: SessionKey) -> JSONError { reader.error(missingKey(key)) }
                    guard location != nil else { throw missing(.blendShapeLocation) }
                    guard let value else { throw missing(.value) }
                    guard let timestamp else { throw missing(.timestamp) }
                    guard let orientation else { throw missing(.orientation) }

                    batch.timestamps.append(timestamp)
                    batch.first.append(value)
                    batch.orientations.append(Int64(orientation))
                    batch.trackingStates.append(state)
                    reader.path.removeLast()
                    seq += 1
                    if batch.count == SampleInserter.batchSize {
                        try inserter.submit(batch)
                        batch = SampleBatch(table: .blendShape, ownerRowID: seriesRowID, firstSeq: seq,
                                            capacity: SampleInserter.batchSize)
                    }
                } while try reader.nextSeparator(close: 0x5D)
            }
            if batch.count > 0 { try inserter.submit(batch) }
            total += seq
            reader.path.removeLast()
        } while try reader.nextSeparator(close: 0x7D)
        return total
    }

}
