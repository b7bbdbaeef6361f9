import Channels
import Foundation
import GRDB
import GRDBSQLite

/// What the export's reading thread hands over: rows, or rows it already formatted.
enum ExportChunk {
    case rows(SampleBatch)
    case bytes([UInt8])
}

/// Steps the sample queries on the export's reading thread and sends column batches,
/// each series ended by a `nil`; counts the rows of each series (`tally`).
final class SeriesReader: @unchecked Sendable {
    private let connection: SQLiteConnection
    private let gaze: SQLiteStatement
    private let blend: SQLiteStatement
    private let channel: BoundedChannel<ExportChunk?>
    private let formatter: CompactSampleFormatter?
    // Touched for every batch on the reading thread only (`failure` read by the consumer after
    // the channel finished): no run-time exclusivity checks.
    @exclusivity(unchecked) private var batchCounter = 0
    @exclusivity(unchecked) private(set) var failure: DatabaseError?
    /// The rows of each series read to its end (`SequenceTable.Tally`), for the damage check.
    @exclusivity(unchecked) private(set) var tally: SequenceTable.Tally = [:]
    /// Set when the consumer cancelled: the remaining series are not read.
    @exclusivity(unchecked) private var stopped = false

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
            let stateColumn = orientationColumn + 1
            batch.append(timestamp: sqlite3_column_double(statement, 0), first: sqlite3_column_double(statement, 1),
                         second: table == .gaze ? sqlite3_column_double(statement, 2) : nil,
                         orientation: sqlite3_column_int64(statement, orientationColumn),
                         state: sqlite3_column_type(statement, stateColumn) == SQLITE_NULL
                             ? nil : String(cString: sqlite3_column_text(statement, stateColumn)))
            seq += 1
            if batch.count == SampleInserter.batchSize {
                guard send(batch) else { stopped = true; return }
                batch = SampleBatch(table: table, ownerRowID: ownerRowID, firstSeq: seq, capacity: SampleInserter.batchSize)
            }
        }
        if batch.count > 0, !send(batch) { stopped = true; return }
        tally[table == .gaze ? .table("gazeSample") : .blendShape(seriesRowID: ownerRowID)] = seq
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
