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
    /// Saved videos of this database's replaced sessions that the imported sessions now name
    /// (absolute paths): a replaced session keeps the video this database saved of it.
    public var keptVideos: [String] = []
    /// Saved videos of replaced sessions removed with them (absolute paths): the imported session
    /// names another video found here, or carries no recorder facts to name one by, so the video
    /// would have been left unnamed.
    public var removedFiles: [String] = []
}

extension SessionDatabase {
    /// Imports every session of every source in one transaction: all of them, or nothing.
    ///
    /// Each source holds one session object or an array of them, in the iOS EyeTracking format.
    /// Samples stream from the file into the tables, so memory stays flat however long a session is.
    public func importSessions(
        from sources: [JSONSource], keyStyle: ImportKeyStyle = .detect, existing: ExistingSessionPolicy = .fail
    ) throws -> ImportReport {
        let file = isFile ? Self.fileIdentity(path) : nil
        var (report, removed) = try SessionFiles.deleting { files in
            try write("import sessions") { db in
                let importer = try SessionImporter(db: db, keyStyle: keyStyle, existing: existing,
                                                   videos: ReplacedVideos(database: self, files: files))
                defer { importer.finish() }
                for source in sources {
                    try importer.importDocument(source)
                }
                try importer.inserter.drain()
                // A deletion of the file this import waited for went first: its commit would land in
                // a file no longer there, and must not be reported as stored (checked holding the
                // write lock, which a deletion of the file takes too).
                if isFile, file == nil || Self.fileIdentity(path) != file {
                    throw StoreError.io(action: "import into", path: path, reason: "the database file was deleted or replaced "
                                        + "while the import ran, so nothing of it is stored there; import again")
                }
                return importer.report
            }
        }
        report.removedFiles = removed
        return report
    }

    /// The device and inode of the file at `path`, nil when there is none.
    static func fileIdentity(_ path: String) -> [UInt64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }
}

/// Walks session documents and streams them into the tables of an open write transaction.
final class SessionImporter {
    private let db: Database
    private let existing: ExistingSessionPolicy
    /// What becomes of the saved videos of replaced sessions.
    private let videos: ReplacedVideos
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

    init(db: Database, keyStyle: ImportKeyStyle, existing: ExistingSessionPolicy, videos: ReplacedVideos) throws {
        self.db = db
        self.videos = videos
        snakeCaseOnly = keyStyle == .snakeCase
        self.existing = existing
        let styles: [KeyStyle] = keyStyle == .detect ? [.camelCase, .snakeCase] : [.snakeCase]
        sessionKeys = SessionKey.table(
            [.id, .appID, .beginTime, .endTime, .scanPath, .blendShapes, .deviceInfo, .gazerec], styles: styles)
        gazeKeys = SessionKey.table([.timestamp, .x, .y, .orientation, .trackingState], styles: styles)
        blendKeys = SessionKey.table(
            [.blendShapeLocation, .value, .timestamp, .orientation, .trackingState], styles: styles)
        deviceKeys = SessionKey.table([.model, .screenSize, .systemName, .systemVersion], styles: styles)
        insertGaze = try db.makeStatement(sql: GazeSampleTable.insertSQL)
        insertBlend = try db.makeStatement(sql: BlendShapeTable.insertSQL)
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
            var sessions = 0
            try reader.forEachElement(of: "'['") { _ in
                try importSession(reader, source: source)
                sessions += 1
            }
            guard sessions > 0 else { throw reader.error(JSONError.emptyArrayReason(item: "session")) }
        default:
            throw reader.error("not EyeTracking JSON: the file begins \(try reader.describeStart()); expected a session object "
                               + "or an array of sessions, as the EyeTracking package and an export write them")
        }
        guard try reader.atEnd() else {
            throw reader.error("unexpected data after the end of the JSON document")
        }
    }

    // MARK: - Session

    /// The members of a session object as read, before they are checked.
    private struct SessionMembers {
        var id: String?
        var appID: String?
        var beginTime: Double?
        var endTime: Double?
        /// `endTime` as the document spells it (for a message about its value).
        var endTimeKey = "endTime"
        var device: DeviceInfo?
        var gazerecExtension: SessionExtension?
        var sawScanPath = false
        var sawBlendShapes = false
    }

    private func importSession(_ reader: JSONReader, source: JSONSource) throws {
        guard try reader.peek() == 0x7B else {
            throw reader.error("expected a session object, found \(try reader.describeNext())")
        }
        try reader.expect(0x7B, "'{'")
        // Samples may come before the id, so they go under a placeholder row renamed at the end.
        placeholderCounter += 1
        try inserter.drain()
        let rowid = try SessionTable.insertPlaceholder(db, name: "\u{1}import-\(placeholderCounter)")
        // A skipped session's samples are not imported, so not counted either.
        let counted = (gaze: report.gazeSamples, blendShapes: report.blendShapeSamples)
        let members = try readSessionMembers(reader, sessionRowID: rowid)
        var header = try checkedHeader(members, reader: reader)
        try inserter.drain()

        if let first = seenIDs[header.id] {
            throw StoreError.duplicateInImport(id: header.id, source: source.displayName, firstSource: first)
        }
        seenIDs[header.id] = source.displayName
        if let stored = try SessionTable.rowid(db, id: header.id, allowPrefix: false) {
            switch existing {
            case .fail:
                throw StoreError.sessionExists(id: header.id, source: source.displayName)
            case .skip:
                try SessionTable.delete(db, rowid: rowid)
                report.skipped.append(header.id)
                (report.gazeSamples, report.blendShapeSamples) = counted
                return
            case .replace:
                report.keptVideos += try videos.carryOver(db, from: stored, to: &header)
                try SessionTable.delete(db, rowid: stored)
                report.replaced.append(header.id)
            }
        } else {
            report.imported.append(header.id)
        }
        try SessionTable.update(db, rowid: rowid, header: header)
        // What every reader would refuse as damage is refused here: a value beyond the bounds no
        // recording reaches (a date past year 9999, a screen of 1e308 points).
        if let detail = try StoredValueTable.damage(db, sessionRowID: rowid) {
            throw reader.error("session \(header.id) holds a value no reader can take: \(detail)")
        }
        try SeriesLengthTable.store(db, sessionRowID: rowid, replacing: true)
    }

    /// Reads a session object's members after its `{`; samples stream into the tables under `sessionRowID`.
    private func readSessionMembers(_ reader: JSONReader, sessionRowID rowid: Int64) throws -> SessionMembers {
        var members = SessionMembers()
        var seen = Set<SessionKey>()
        try reader.forEachMember(keys: sessionKeys.0) { index in
            guard let index else { return try reader.skipValue() }
            let key = sessionKeys.1[index]
            guard seen.insert(key).inserted else { throw reader.error("duplicate key") }
            try readSessionMember(key, reader, sessionRowID: rowid, into: &members)
        }
        return members
    }

    private func readSessionMember(_ key: SessionKey, _ reader: JSONReader, sessionRowID rowid: Int64,
                                   into members: inout SessionMembers) throws {
        switch key {
        case .id:
            let text = try reader.readString()
            guard let uuid = UUID(uuidString: text) else {
                throw reader.error("'\(text)' is not a UUID string such as 3BE54760-F1E8-4799-A3CB-78806270E72A")
            }
            members.id = uuid.uuidString
        case .appID:
            let appID = try reader.readString()
            if let problem = LabelRule.problem(appID) { throw reader.error(problem.description) }
            members.appID = appID
        case .beginTime:
            members.beginTime = try reader.readNumber()
        case .endTime:
            members.endTimeKey = reader.lastKey
            members.endTime = try reader.consumeNull() ? nil : try reader.readNumber()
        case .deviceInfo:
            members.device = try readDeviceInfo(reader)
        case .scanPath:
            members.sawScanPath = true
            report.gazeSamples += try readScanPath(reader, sessionRowID: rowid)
        case .blendShapes:
            members.sawBlendShapes = true
            report.blendShapeSamples += try readBlendShapes(reader, sessionRowID: rowid)
        case .gazerec:
            members.gazerecExtension = try readExtension(reader, sessionRowID: rowid)
        default:
            try reader.skipValue()
        }
    }

    /// The header of a session object whose required keys were all there (checked in the order the format lists them).
    private func checkedHeader(_ members: SessionMembers, reader: JSONReader) throws -> SessionHeader {
        func missing(_ key: SessionKey) -> JSONError {
            reader.error(missingKey(key))
        }
        guard let id = members.id else { throw missing(.id) }
        guard let appID = members.appID else { throw missing(.appID) }
        guard let beginTime = members.beginTime else { throw missing(.beginTime) }
        guard let device = members.device else { throw missing(.deviceInfo) }
        guard members.sawScanPath else { throw missing(.scanPath) }
        guard members.sawBlendShapes else { throw missing(.blendShapes) }
        if let end = members.endTime, end < beginTime {
            reader.path.append(.key(members.endTimeKey))
            defer { reader.path.removeLast() }
            throw reader.error("\(Self.number(end)) is before beginTime (\(Self.number(beginTime))); a session cannot end before it begins")
        }
        return SessionHeader(id: id, appID: appID, beginTimeSeconds: beginTime, endTimeSeconds: members.endTime,
                             deviceInfo: device, gazerecExtension: members.gazerecExtension)
    }

    private func readDeviceInfo(_ reader: JSONReader) throws -> DeviceInfo {
        var model: String?
        var size: (Double, Double)?
        var systemName: String?
        var systemVersion: String?
        try reader.forEachMember(of: "an object", keys: deviceKeys.0) { index in
            switch index.map({ deviceKeys.1[$0] }) {
            case .model?: model = try reader.readString()
            case .systemName?: systemName = try reader.readString()
            case .systemVersion?: systemVersion = try reader.readString()
            case .screenSize?:
                try reader.expect(0x5B, "an array [width, height]")
                reader.path.append(.index(0))
                let width = try readScreenSide(reader, "width")
                reader.path.removeLast()
                try reader.expect(0x2C, "',' and the height: screenSize is [width, height]")
                reader.path.append(.index(1))
                let height = try readScreenSide(reader, "height")
                reader.path.removeLast()
                try reader.expect(0x5D, "']': screenSize is [width, height]")
                size = (width, height)
            default:
                try reader.skipValue()
            }
        }
        func missing(_ key: SessionKey) -> JSONError { reader.error(missingKey(key)) }
        guard let model else { throw missing(.model) }
        guard let size else { throw missing(.screenSize) }
        guard let systemName else { throw missing(.systemName) }
        guard let systemVersion else { throw missing(.systemVersion) }
        return DeviceInfo(model: model, screenWidth: size.0, screenHeight: size.1,
                          systemName: systemName, systemVersion: systemVersion)
    }

    /// One side of `screenSize`, which must be positive.
    private func readScreenSide(_ reader: JSONReader, _ side: String) throws -> Double {
        let value = try reader.readNumber()
        guard value > 0 else {
            throw reader.error("the \(side) must be a positive number of screen points, found \(Self.number(value))")
        }
        return value
    }

    /// A number as a message quotes it: integers without a fraction.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Throws when a sample's `timestamp` is earlier than the one before it (samples are in time
    /// order); `previous` is updated. The reader's path is the sample's.
    private func checkTimeOrder(_ timestamp: Double, after previous: inout Double, _ reader: JSONReader) throws {
        if timestamp < previous {
            reader.path.append(.key("timestamp"))
            defer { reader.path.removeLast() }
            throw reader.error("\(Self.number(timestamp)) is earlier than the sample before it (\(Self.number(previous))); "
                               + "samples are in time order")
        }
        previous = timestamp
    }

    // MARK: - The "gazerec" extension

    /// Reads the extension object through its codec: the frame series, blink events and markers
    /// stream into their tables, the other members are returned.
    private func readExtension(_ reader: JSONReader, sessionRowID: Int64) throws -> SessionExtension {
        let seq = StreamedSequence()
        // The insert thread must be idle before these rows go in on this one.
        let elements = SessionExtensionElements(
            frame: { [db, inserter] frame in
                try inserter.drain()
                try FrameTable.insert(db, frame, sessionRowID: sessionRowID, seq: seq.take(\.frame))
            },
            blink: { [db, inserter] event in
                try inserter.drain()
                try BlinkTable.insert(db, event, sessionRowID: sessionRowID, seq: seq.take(\.blink))
            },
            marker: { [db, inserter] marker in
                if let problem = LabelRule.problem(marker.label) {
                    reader.path.append(.key("label"))
                    defer { reader.path.removeLast() }
                    throw reader.error(problem.description)
                }
                if let data = marker.dataJSON, let problem = MarkerDataRule.problem(data) {
                    reader.path.append(.key("data"))
                    defer { reader.path.removeLast() }
                    throw reader.error(problem.description)
                }
                try inserter.drain()
                try MarkerTable.insert(db, marker, sessionRowID: sessionRowID, seq: seq.take(\.marker))
            },
            expression: { [db, inserter] sample in
                try inserter.drain()
                try ExpressionTable.insert(db, sample, sessionRowID: sessionRowID, seq: seq.take(\.expression))
            },
            presentations: { [db, inserter] presentations in
                try inserter.drain()
                var logs = PresentationTable.Logs()
                for presentation in presentations {
                    logs = try PresentationTable.record(db, presentation, sessionRowID: sessionRowID, logs: logs)
                }
            })
        return try SessionExtensionCodec.read(reader, into: elements)
    }

    /// The next sequence numbers of one session's streamed extension series.
    private final class StreamedSequence {
        // Touched for every element, on the importing thread only: no run-time exclusivity checks.
        @exclusivity(unchecked) var frame = 0
        @exclusivity(unchecked) var blink = 0
        @exclusivity(unchecked) var marker = 0
        @exclusivity(unchecked) var expression = 0

        /// The next number of a series, counted on.
        func take(_ series: ReferenceWritableKeyPath<StreamedSequence, Int>) -> Int {
            defer { self[keyPath: series] += 1 }
            return self[keyPath: series]
        }
    }

    // MARK: - Samples

    /// Reads `trackingState`: a string, or null (same as absent).
    private func readTrackingState(_ reader: JSONReader) throws -> String? {
        try reader.consumeNull() ? nil : try reader.readString()
    }

    /// An array of samples, each appended to the batch by `readSample`, in time order, handed to
    /// the insert thread in batches; returns how many.
    private func readSamples(_ reader: JSONReader, of what: String, table: SampleBatch.Table, ownerRowID: Int64,
                             _ readSample: (inout SampleBatch) throws -> Void) throws -> Int {
        var seq = 0
        var previous = -Double.infinity
        var batch = SampleBatch(table: table, ownerRowID: ownerRowID, firstSeq: 0, capacity: SampleInserter.batchSize)
        try reader.forEachElement(of: what) { _ in
            try readSample(&batch)
            try checkTimeOrder(batch.timestamps[batch.timestamps.count - 1], after: &previous, reader)
            seq += 1
            if batch.count == SampleInserter.batchSize {
                try inserter.submit(batch)
                batch = SampleBatch(table: table, ownerRowID: ownerRowID, firstSeq: seq, capacity: SampleInserter.batchSize)
            }
        }
        if batch.count > 0 { try inserter.submit(batch) }
        return seq
    }

    private func readScanPath(_ reader: JSONReader, sessionRowID: Int64) throws -> Int {
        try readSamples(reader, of: "an array of gaze samples", table: .gaze, ownerRowID: sessionRowID) { batch in
            var timestamp: Double?, x: Double?, y: Double?, orientation: Int?, state: String?
            try reader.forEachMember(of: "a gaze sample object", keys: gazeKeys.0) { index in
                switch index.map({ gazeKeys.1[$0] }) {
                case .timestamp?: timestamp = try reader.readNumber()
                case .x?: x = try reader.readNumber()
                case .y?: y = try reader.readNumber()
                case .orientation?: orientation = try reader.readInteger()
                case .trackingState?: state = try readTrackingState(reader)
                default: try reader.skipValue()
                }
            }
            func missing(_ key: SessionKey) -> JSONError { reader.error(missingKey(key)) }
            guard let timestamp else { throw missing(.timestamp) }
            guard let x else { throw missing(.x) }
            guard let y else { throw missing(.y) }
            guard let orientation else { throw missing(.orientation) }
            batch.append(timestamp: timestamp, first: x, second: y, orientation: Int64(orientation), state: state)
        }
    }

    private func readBlendShapes(_ reader: JSONReader, sessionRowID: Int64) throws -> Int {
        var total = 0
        var names = Set<String>()
        try reader.forEachNamedMember(of: "an object of blend-shape series", key: "a blend-shape name in double quotes") { name in
            guard !name.isEmpty else { throw reader.error("empty blend-shape name") }
            guard names.insert(name).inserted else { throw reader.error("duplicate blend-shape series") }
            try inserter.drain()
            let seriesRowID = try BlendShapeTable.insertSeries(db, sessionRowID: sessionRowID, name: name)
            total += try readBlendShapeSeries(reader, name: name, seriesRowID: seriesRowID)
        }
        return total
    }

    /// One series' array of samples, handed to the insert thread in batches; returns how many.
    private func readBlendShapeSeries(_ reader: JSONReader, name: String, seriesRowID: Int64) throws -> Int {
        try readSamples(reader, of: "an array of blend-shape samples", table: .blendShape, ownerRowID: seriesRowID) { batch in
            try reader.expect(0x7B, "a blend-shape sample object")
            try readBlendShapeSample(reader, name: name, into: &batch)
        }
    }

    /// One blend-shape sample object after its `{`, appended to `batch`.
    private func readBlendShapeSample(_ reader: JSONReader, name: String, into batch: inout SampleBatch) throws {
        var location: String?, value: Double?, timestamp: Double?, orientation: Int?, state: String?
        try reader.forEachMember(keys: blendKeys.0) { index in
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
        }
        func missing(_ key: SessionKey) -> JSONError { reader.error(missingKey(key)) }
        guard location != nil else { throw missing(.blendShapeLocation) }
        guard let value else { throw missing(.value) }
        guard let timestamp else { throw missing(.timestamp) }
        guard let orientation else { throw missing(.orientation) }
        batch.append(timestamp: timestamp, first: value, second: nil, orientation: Int64(orientation), state: state)
    }
}

/// The saved video of a session an import replaces, when it is this database's own file
/// (`SessionFiles.named`): never left behind unnamed. An imported session that names the same file
/// (its own export, read back) names it as this database does, so it stays owned; one that names a
/// file not found here (another station's path) or no video is given the stored path (with the
/// frame counts it carries, else the stored ones), and keeps the video; one that names another file found here, or carries no recorder
/// facts to name a video by, replaces it: the video is removed with the replaced session (moved
/// aside now, unlinked once the import has committed).
struct ReplacedVideos {
    let database: SessionDatabase
    let files: SessionFiles

    /// Names the video the session at `stored` owns in `header`, or moves it aside for removal;
    /// returns the files the imported session now names that way (absolute paths).
    func carryOver(_ db: Database, from stored: Int64, to header: inout SessionHeader) throws -> [String] {
        let owned = try SessionFiles.named(db, rowid: stored, in: database).owned
        guard let file = owned.first, let video = try SessionTable.header(db, rowid: stored).gazerecExtension?.recorder?.savedVideo
        else { return [] }
        guard var mark = header.gazerecExtension, var facts = mark.recorder else {
            try files.moveAside(file)
            return []
        }
        if let named = facts.savedVideo.map({ database.resolvedVideoPath($0.path) }), named != file,
           FileManager.default.fileExists(atPath: named) {
            try files.moveAside(file)
            return []
        }
        facts.savedVideo = RecordingFacts.SavedVideo(path: video.path, frames: facts.savedVideo?.frames ?? video.frames,
                                                     droppedFrames: facts.savedVideo?.droppedFrames ?? video.droppedFrames)
        mark.recorder = facts
        header.gazerecExtension = mark
        return [file]
    }
}
