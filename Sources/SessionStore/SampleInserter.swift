import Foundation
import GRDB
import GRDBSQLite

/// A batch of samples for one table, held as columns.
struct SampleBatch {
    enum Table { case gaze, blendShape }
    var table: Table
    /// Session row id (gaze) or series row id (blend shapes).
    var ownerRowID: Int64
    var firstSeq: Int
    var timestamps: [Double] = []
    /// x (gaze) or value (blend shapes).
    var first: [Double] = []
    /// y (gaze); unused for blend shapes.
    var second: [Double] = []
    var orientations: [Int64] = []
    var trackingStates: [String?] = []

    init(table: Table, ownerRowID: Int64, firstSeq: Int, capacity: Int) {
        self.table = table
        self.ownerRowID = ownerRowID
        self.firstSeq = firstSeq
        timestamps.reserveCapacity(capacity)
        first.reserveCapacity(capacity)
        if table == .gaze { second.reserveCapacity(capacity) }
        orientations.reserveCapacity(capacity)
        trackingStates.reserveCapacity(capacity)
    }

    var count: Int { timestamps.count }

    /// Adds one sample's columns; `second` is the y of a gaze sample, nil for a blend shape.
    @inline(__always)
    mutating func append(timestamp: Double, first value: Double, second: Double?, orientation: Int64, state: String?) {
        timestamps.append(timestamp)
        first.append(value)
        if let second { self.second.append(second) }
        orientations.append(orientation)
        trackingStates.append(state)
    }
}

/// Inserts sample batches on a second thread while the caller goes on parsing.
///
/// WHAT THIS OBJECT REPRESENTS
///   A one-slot pipeline between the JSON parser (the caller's thread, inside a GRDB write
///   transaction) and SQLite. Import is half parsing and half inserting, and the machine has two
///   cores: overlapping them cuts an import's wall time by about a third.
/// THREAD SAFETY
///   The caller must not touch the connection through GRDB while batches are in flight:
///   call `drain()` before any other statement and before leaving the transaction.
///   Errors from the worker are rethrown by the next `submit` or `drain`.
final class SampleInserter: @unchecked Sendable {
    static let batchSize = 4096

    private let connection: SQLiteConnection
    private let gazeStatement: SQLiteStatement
    private let blendStatement: SQLiteStatement
    private let condition = NSCondition()
    private var pending: SampleBatch?
    private var busy = false
    private var failure: DatabaseError?
    private var stopping = false

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(connection: SQLiteConnection, gazeStatement: SQLiteStatement, blendStatement: SQLiteStatement) {
        self.connection = connection
        self.gazeStatement = gazeStatement
        self.blendStatement = blendStatement
        let thread = Thread { [self] in self.work() }
        thread.name = "gazerec.import.insert"
        thread.start()
    }

    /// Hands a batch to the worker, waiting while the previous one is still queued.
    func submit(_ batch: SampleBatch) throws {
        condition.lock()
        defer { condition.unlock() }
        while pending != nil && failure == nil { condition.wait() }
        if let failure { throw failure }
        pending = batch
        condition.broadcast()
    }

    /// Waits until every submitted batch is inserted; rethrows an insert error.
    func drain() throws {
        condition.lock()
        defer { condition.unlock() }
        while (pending != nil || busy) && failure == nil { condition.wait() }
        if let failure { throw failure }
    }

    /// Stops the worker once the queued batch is done (call once, on every exit path).
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private var finished = false

    private func work() {
        condition.lock()
        while true {
            while pending == nil && !stopping { condition.wait() }
            guard let batch = pending else { break }  // stopping, nothing queued
            pending = nil
            busy = true
            condition.broadcast()
            let skip = failure != nil
            condition.unlock()
            let error = skip ? nil : insert(batch)
            condition.lock()
            if let error, failure == nil { failure = error }
            busy = false
            condition.broadcast()
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func insert(_ batch: SampleBatch) -> DatabaseError? {
        let statement = batch.table == .gaze ? gazeStatement : blendStatement
        for index in 0..<batch.count {
            sqlite3_reset(statement)
            sqlite3_bind_int64(statement, 1, batch.ownerRowID)
            sqlite3_bind_int64(statement, 2, Int64(batch.firstSeq + index))
            sqlite3_bind_double(statement, 3, batch.timestamps[index])
            sqlite3_bind_double(statement, 4, batch.first[index])
            var column: Int32 = 5
            if batch.table == .gaze {
                sqlite3_bind_double(statement, 5, batch.second[index])
                column = 6
            }
            sqlite3_bind_int64(statement, column, batch.orientations[index])
            if let state = batch.trackingStates[index] {
                sqlite3_bind_text(statement, column + 1, state, -1, Self.transient)
            } else {
                sqlite3_bind_null(statement, column + 1)
            }
            let code = sqlite3_step(statement)
            guard code == SQLITE_DONE else {
                let message = String(cString: sqlite3_errmsg(connection))
                sqlite3_reset(statement)
                return DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
            }
        }
        sqlite3_reset(statement)
        return nil
    }
}
