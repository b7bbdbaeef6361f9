import Foundation
import GazeModel
import GRDB

/// What `calibrations list` shows about a stored calibration; the full record is its JSON document.
public struct CalibrationSummary: Sendable, Equatable {
    /// Upper-case UUID string.
    public var id: String
    public var name: String?
    /// Unix seconds.
    public var createdAtSeconds: Double
    /// Screen the targets were placed on, screen points.
    public var screenWidth: Double
    public var screenHeight: Double
    /// Calibration targets (5, 9 or 13 for the built-in layouts).
    public var pointCount: Int
    /// Validation accuracy, screen points and (when the geometry was given) degrees.
    public var accuracyPoints: Double?
    public var accuracyDegrees: Double?

    public init(id: String, name: String?, createdAtSeconds: Double, screenWidth: Double, screenHeight: Double,
                pointCount: Int, accuracyPoints: Double?, accuracyDegrees: Double?) {
        self.id = id
        self.name = name
        self.createdAtSeconds = createdAtSeconds
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.pointCount = pointCount
        self.accuracyPoints = accuracyPoints
        self.accuracyDegrees = accuracyDegrees
    }
}

extension SessionDatabase {
    /// Calibrations are read and written whole (the fit, its targets and raw samples, as one JSON
    /// document of ≈ 100 kB); the columns beside it are what listing and choosing one needs.
    static func registerCalibrationMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3: calibrations") { db in
            try db.execute(sql: """
                CREATE TABLE calibration (
                    rowid INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    name TEXT,
                    createdAt REAL NOT NULL,
                    screenWidth REAL NOT NULL,
                    screenHeight REAL NOT NULL,
                    pointCount INTEGER NOT NULL,
                    accuracyPoints REAL,
                    accuracyDegrees REAL,
                    document TEXT NOT NULL
                );
                CREATE INDEX calibrationByScreen ON calibration (screenWidth, screenHeight, createdAt);
                """)
        }
    }

    /// Stores calibrations in one transaction. An id already stored fails the whole call unless
    /// `replace` (then it is overwritten); `source` names where they came from, for the message.
    public func saveCalibrations(_ calibrations: [(summary: CalibrationSummary, document: String)], replace: Bool,
                                 source: String) throws {
        try guarded("save calibrations") {
            try writer.write { db in
                for (summary, document) in calibrations {
                    let id = summary.id.uppercased()
                    if try Int64.fetchOne(db, sql: "SELECT rowid FROM calibration WHERE id = ?", arguments: [id]) != nil {
                        guard replace else { throw StoreError.calibrationExists(id: id, source: source) }
                        try db.execute(sql: "DELETE FROM calibration WHERE id = ?", arguments: [id])
                    }
                    try db.execute(sql: """
                        INSERT INTO calibration (id, name, createdAt, screenWidth, screenHeight, pointCount,
                                                 accuracyPoints, accuracyDegrees, document)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [id, summary.name, summary.createdAtSeconds, summary.screenWidth,
                                         summary.screenHeight, summary.pointCount, summary.accuracyPoints,
                                         summary.accuracyDegrees, document])
                }
            }
        }
    }

    /// Every stored calibration, oldest first.
    public func calibrations() throws -> [CalibrationSummary] {
        try guarded("list calibrations") {
            try writer.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM calibration ORDER BY createdAt, id").map(Self.calibrationSummary)
            }
        }
    }

    /// The newest calibration, for this screen size when given; nil if there is none.
    public func latestCalibration(screenWidth: Double? = nil, screenHeight: Double? = nil) throws -> CalibrationSummary? {
        try guarded("find the latest calibration") {
            try writer.read { db in
                let row: Row?
                if let screenWidth, let screenHeight {
                    row = try Row.fetchOne(db, sql: """
                        SELECT * FROM calibration WHERE screenWidth = ? AND screenHeight = ?
                        ORDER BY createdAt DESC, rowid DESC LIMIT 1
                        """, arguments: [screenWidth, screenHeight])
                } else {
                    row = try Row.fetchOne(db, sql: "SELECT * FROM calibration ORDER BY createdAt DESC, rowid DESC LIMIT 1")
                }
                return row.map(Self.calibrationSummary)
            }
        }
    }

    /// The summary and JSON document of one calibration; `latest` names the newest.
    public func calibration(id: String) throws -> (summary: CalibrationSummary, document: String) {
        try guarded("read calibration \(id)") {
            try writer.read { db in
                let row = id.lowercased() == "latest"
                    ? try Row.fetchOne(db, sql: "SELECT * FROM calibration ORDER BY createdAt DESC, rowid DESC LIMIT 1")
                    : try Row.fetchOne(db, sql: "SELECT * FROM calibration WHERE id = ?", arguments: [id.uppercased()])
                guard let row else { throw StoreError.unknownCalibration(id: id, databasePath: path) }
                return (Self.calibrationSummary(row), row["document"])
            }
        }
    }

    /// Deletes calibrations in one transaction; if any id is unknown, deletes none. Sessions
    /// recorded with them keep their scan paths (and the calibration's id in their extension).
    public func deleteCalibrations(ids: [String]) throws {
        try guarded("delete calibrations") {
            try writer.write { db in
                for id in ids {
                    try db.execute(sql: "DELETE FROM calibration WHERE id = ?", arguments: [id.uppercased()])
                    if db.changesCount == 0 { throw StoreError.unknownCalibration(id: id, databasePath: path) }
                }
            }
        }
    }

    static func calibrationSummary(_ row: Row) -> CalibrationSummary {
        CalibrationSummary(id: row["id"], name: row["name"], createdAtSeconds: row["createdAt"],
                           screenWidth: row["screenWidth"], screenHeight: row["screenHeight"],
                           pointCount: row["pointCount"], accuracyPoints: row["accuracyPoints"],
                           accuracyDegrees: row["accuracyDegrees"])
    }
}

/// A recorded session's inputs for recomputing its scan path.
public struct StoredFrames: Sendable {
    public var header: SessionHeader
    public var frames: [FrameMeasurement]
    /// The orientation its samples were recorded with (from its first sample; 0 if none).
    public var orientation: Int
    /// Whether its recorder is still running (the session has no end time and is not interrupted).
    public var recording: Bool
}

extension SessionDatabase {
    /// A session's stored per-frame features, in order.
    public func storedFrames(id: String) throws -> StoredFrames {
        try guarded("read session \(id)") {
            try writer.read { db in
                guard let rowid = try Self.rowid(db, id: id) else {
                    throw StoreError.unknownSession(id: id, databasePath: path)
                }
                let (header, _) = try Self.header(db, rowid: rowid)
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT \(SampleTables.frameSelection)
                    FROM frameSample WHERE sessionRowID = ? ORDER BY seq
                    """, arguments: [rowid])
                var frames: [FrameMeasurement] = []
                while let row = try rows.next() {
                    do {
                        frames.append(try SampleTables.frame(row))
                    } catch let error as FrameColumnError {
                        throw StoreError.database(action: "read the frames of session \(id)", path: path,
                                                  reason: "frame \(frames.count): \(error.reason)")
                    }
                }
                return StoredFrames(header: header, frames: frames, orientation: try Self.orientation(db, sessionRowID: rowid),
                                    recording: header.endTimeSeconds == nil)
            }
        }
    }

    /// The orientation a session's samples were recorded with (from its first sample; 0 if none).
    public func sampleOrientation(id: String) throws -> Int {
        try guarded("read session \(id)") {
            try writer.read { db in
                guard let rowid = try Self.rowid(db, id: id) else { throw StoreError.unknownSession(id: id, databasePath: path) }
                return try Self.orientation(db, sessionRowID: rowid)
            }
        }
    }

    private static func orientation(_ db: Database, sessionRowID: Int64) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT orientation FROM (
                SELECT orientation, 0 AS rank FROM gazeSample WHERE sessionRowID = ?1 AND seq = 0
                UNION ALL SELECT b.orientation, 1 FROM blendShapeSample b JOIN blendShapeSeries s
                    ON b.seriesRowID = s.rowid WHERE s.sessionRowID = ?1 AND b.seq = 0)
            ORDER BY rank LIMIT 1
            """, arguments: [sessionRowID]) ?? 0
    }

    /// Replaces a session's scan path, its extension object and its screen size, in one transaction.
    public func replaceScanPath(id: String, samples: [GazeSample], gazerecExtension: SessionExtension, screenWidth: Double,
                                screenHeight: Double) throws {
        try guarded("replace the scan path of session \(id)") {
            try writer.write { db in
                guard let rowid = try Self.rowid(db, id: id) else {
                    throw StoreError.unknownSession(id: id, databasePath: path)
                }
                try db.execute(sql: "DELETE FROM gazeSample WHERE sessionRowID = ?", arguments: [rowid])
                for (seq, sample) in samples.enumerated() {
                    try SampleTables.insert(sample, sessionRowID: rowid, seq: seq, db: db)
                }
                try db.execute(sql: "UPDATE session SET extensionJSON = ?, screenWidth = ?, screenHeight = ? WHERE rowid = ?",
                               arguments: [gazerecExtension.storedText, screenWidth, screenHeight, rowid])
            }
        }
    }
}
