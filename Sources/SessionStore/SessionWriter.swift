import Foundation
import GazeModel
import GRDB
import GRDBSQLite

/// What one recorder flush appends to its session.
public struct SampleBatchToAppend: Sendable {
    public var gaze: [GazeSample] = []
    /// Blend-shape name → samples.
    public var blendShapes: [String: [BlendShapeSample]] = [:]
    public var frames: [FrameMeasurement] = []
    public var blinks: [BlinkEvent] = []

    public init() {}

    public var isEmpty: Bool {
        gaze.isEmpty && frames.isEmpty && blinks.isEmpty && blendShapes.values.allSatisfy(\.isEmpty)
    }
}

/// Appends a recording's samples to its session as it goes, one transaction per flush.
///
/// The session row exists (without `endTime`) from `begin` on, so a reader — or a crash — always
/// finds a readable prefix. `close` sets `endTime` and the final extension object.
/// One writer per session, used from one thread.
public final class SessionWriter {
    public let database: SessionDatabase
    public let sessionID: String
    private let sessionRowID: Int64
    private var seriesRowIDs: [String: Int64] = [:]
    private var nextSeq: [String: Int] = [:]
    public private(set) var lastTimestamp: Double?

    /// Creates the session row and its blend-shape series.
    public init(database: SessionDatabase, header: SessionHeader, blendShapeNames: [String], recorderPID: Int32) throws {
        self.database = database
        sessionID = header.id
        var series: [String: Int64] = [:]
        sessionRowID = try database.guarded("start session \(header.id)") {
            try database.writer.write { db in
                try db.execute(sql: """
                    INSERT INTO session (id, appID, beginTime, deviceModel, screenWidth, screenHeight, systemName,
                                         systemVersion, extensionJSON, recorderPID)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [header.id, header.appID, header.beginTimeSeconds, header.deviceInfo.model,
                                     header.deviceInfo.screenWidth, header.deviceInfo.screenHeight,
                                     header.deviceInfo.systemName, header.deviceInfo.systemVersion,
                                     header.gazerecExtension?.storedText, recorderPID])
                let rowid = db.lastInsertedRowID
                for name in blendShapeNames {
                    try db.execute(sql: "INSERT INTO blendShapeSeries (sessionRowID, name) VALUES (?, ?)",
                                   arguments: [rowid, name])
                    series[name] = db.lastInsertedRowID
                }
                return rowid
            }
        }
        seriesRowIDs = series
    }

    /// Appends one batch in one transaction.
    public func append(_ batch: SampleBatchToAppend) throws {
        guard !batch.isEmpty else { return }
        try database.guarded("record samples") {
            try database.writer.write { db in
                for sample in batch.gaze {
                    try SampleTables.insert(sample, sessionRowID: sessionRowID, seq: take("gaze"), db: db)
                }
                for (name, samples) in batch.blendShapes {
                    guard let series = seriesRowIDs[name] else { continue }
                    for sample in samples {
                        try SampleTables.insert(sample, seriesRowID: series, seq: take("blend:" + name), db: db)
                    }
                }
                for frame in batch.frames {
                    try SampleTables.insert(frame, sessionRowID: sessionRowID, seq: take("frame"), db: db)
                    lastTimestamp = frame.timestampSeconds
                }
                for event in batch.blinks {
                    try SampleTables.insert(event, sessionRowID: sessionRowID, seq: take("blink"), db: db)
                }
            }
        }
    }

    private func take(_ series: String) -> Int {
        let seq = nextSeq[series, default: 0]
        nextSeq[series] = seq + 1
        return seq
    }

    /// Ends the session: `endTime` and the final extension object, in one transaction.
    public func close(endTimeSeconds: Double, gazerecExtension: SessionExtension?) throws {
        try database.guarded("close session \(sessionID)") {
            try database.writer.write { db in
                try db.execute(sql: "UPDATE session SET endTime = ?, extensionJSON = ?, recorderPID = NULL WHERE rowid = ?",
                               arguments: [endTimeSeconds, gazerecExtension?.storedText, sessionRowID])
            }
        }
    }
}

extension SessionDatabase {
    /// Closes sessions left open by a recorder that died: `endTime` = their last sample (or begin),
    /// marked interrupted. `except` is the session of a recorder still running. Returns the ids closed.
    @discardableResult
    public func repairInterruptedSessions(except running: String? = nil) throws -> [String] {
        try guarded("repair interrupted sessions") {
            try writer.write { db in
                let open = try Row.fetchAll(db, sql: "SELECT rowid, id, beginTime, extensionJSON FROM session WHERE endTime IS NULL")
                var repaired: [String] = []
                for row in open {
                    let id: String = row["id"]
                    if id == running { continue }
                    let rowid: Int64 = row["rowid"]
                    let last = try Double.fetchOne(db, sql: """
                        SELECT MAX(t) FROM (
                            SELECT MAX(timestamp) AS t FROM gazeSample WHERE sessionRowID = ?1
                            UNION ALL SELECT MAX(timestamp) FROM frameSample WHERE sessionRowID = ?1
                            UNION ALL SELECT MAX(b.timestamp) FROM blendShapeSample b
                                JOIN blendShapeSeries s ON b.seriesRowID = s.rowid WHERE s.sessionRowID = ?1)
                        """, arguments: [rowid])
                    let begin: Double = row["beginTime"]
                    // The mark travels with the session (export, import elsewhere), not only in this file.
                    var mark = SessionExtension(storedText: row["extensionJSON"]) ?? SessionExtension()
                    mark.interrupted = true
                    try db.execute(sql: """
                        UPDATE session SET endTime = ?, interrupted = 1, recorderPID = NULL, extensionJSON = ? WHERE rowid = ?
                        """, arguments: [max(last ?? begin, begin), mark.storedText, rowid])
                    repaired.append(id)
                }
                return repaired
            }
        }
    }

    /// Number of frames and the last frame time stored for a session (for `status` and tests).
    public func frameCount(id: String) throws -> (count: Int, last: Double?) {
        try guarded("read session \(id)") {
            try writer.read { db in
                guard let rowid = try Self.rowid(db, id: id) else {
                    throw StoreError.unknownSession(id: id, databasePath: path)
                }
                let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, MAX(timestamp) AS t FROM frameSample WHERE sessionRowID = ?",
                                           arguments: [rowid])!
                return (row["n"], row["t"])
            }
        }
    }
}

extension SessionDatabase {
    /// A session's scan path in recorded order, and its screen size (points).
    public func scanPath(id: String) throws -> (samples: [GazeSample], screenWidth: Double, screenHeight: Double) {
        try guarded("read session \(id)") {
            try writer.read { db in
                guard let rowid = try Self.rowid(db, id: id) else {
                    throw StoreError.unknownSession(id: id, databasePath: path)
                }
                let (header, _) = try Self.header(db, rowid: rowid)
                return (try Self.scanPathSamples(db, sessionRowID: rowid), header.deviceInfo.screenWidth,
                        header.deviceInfo.screenHeight)
            }
        }
    }

    /// The scan path of a session row, in recorded order (inside a read).
    static func scanPathSamples(_ db: Database, sessionRowID: Int64) throws -> [GazeSample] {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT timestamp, x, y, orientation, trackingState FROM gazeSample WHERE sessionRowID = ? ORDER BY seq
            """, arguments: [sessionRowID])
        var samples: [GazeSample] = []
        while let row = try rows.next() {
            samples.append(GazeSample(timestampSeconds: row[0], x: row[1], y: row[2], orientation: row[3],
                                      trackingState: TrackingState(eyeTrackingValue: row[4])))
        }
        return samples
    }
}

extension SessionDatabase {
    /// Adds an event marker to a session (one short transaction beside a running recorder's).
    public func addMarker(_ marker: Marker, sessionID: String) throws {
        try guarded("add a marker to session \(sessionID)") {
            try writer.write { db in
                guard let rowid = try Self.rowid(db, id: sessionID) else {
                    throw StoreError.unknownSession(id: sessionID, databasePath: path)
                }
                let next = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(seq) + 1, 0) FROM marker WHERE sessionRowID = ?",
                                            arguments: [rowid]) ?? 0
                try SampleTables.insert(marker, sessionRowID: rowid, seq: next, db: db)
            }
        }
    }

    /// A session's markers in the order they were added.
    public func markers(id: String) throws -> [Marker] {
        try guarded("read the markers of session \(id)") {
            try writer.read { db in
                guard let rowid = try Self.rowid(db, id: id) else { throw StoreError.unknownSession(id: id, databasePath: path) }
                return try SampleTables.markers(db, sessionRowID: rowid)
            }
        }
    }
}
