import Foundation
import GazeModel
import GRDB
import Testing
import TestSupport
@testable import SessionStore

/// Presentations in the store: recorded by the writer at their onset, as they go on and at their
/// end (a row replaced by its index, its events and playback samples appended), read back whole,
/// counted as series by the damage check, and gone with their session.
@Suite("Presentations in the store")
struct PresentationStoreTests {
    static let begin = 1_790_000_000.0

    static func header(_ id: String) -> SessionHeader {
        SessionHeader(id: id, appID: "test", beginTimeSeconds: begin, endTimeSeconds: nil,
                      deviceInfo: DeviceInfo(model: "test", screenWidth: 1280, screenHeight: 800, systemName: "Linux", systemVersion: "6"))
    }

    /// `presentation` as it stood at session time `t`: what the recorder knows then.
    static func partial(_ presentation: Presentation, at t: Double) -> Presentation {
        var partial = presentation
        partial.events = presentation.events.filter { $0.timestampSeconds <= t }
        partial.playback = presentation.playback.filter { $0.timestampSeconds <= t }
        if presentation.offsetSeconds.map({ $0 > t }) ?? true { (partial.offsetSeconds, partial.ending) = (nil, nil) }
        return partial
    }

    /// A 20-second session at 25 frames a second whose presentations are recorded as a recorder
    /// would: each at its onset, again with every flush of frames while shown (batches of 0.5 s), and at its end.
    static func recorded() throws -> (SessionDatabase, String, [Presentation]) {
        let store = try SessionDatabase()
        let id = UUID().uuidString
        let writer = try SessionWriter(database: store, header: header(id), blendShapeNames: [], recorderPID: 1)
        let presentations = StudyPresentations.presentations(begin: begin)
        var shownUpTo = Array(repeating: false, count: presentations.count)
        for flush in 0..<40 {
            var batch = SampleBatchToAppend()
            let end = begin + Double(flush + 1) / 2
            for frame in (flush * 25 / 2)..<((flush + 1) * 25 / 2) {
                batch.frames.append(FrameMeasurement(timestampSeconds: begin + Double(frame) / 25, trackingState: .normal, confidence: 0.9))
            }
            for p in presentations where p.onsetSeconds < end && !shownUpTo[p.index] {
                if p.offsetSeconds! <= end { shownUpTo[p.index] = true }
                batch.presentations.append(partial(p, at: end))
            }
            try writer.append(batch)
        }
        // Recorded once more at its end through the single call (nothing new: rows stay as they are).
        try writer.record(presentation: presentations[2])
        try writer.close(endTimeSeconds: begin + 20, gazerecExtension: nil)
        return (store, id, presentations)
    }

    @Test("recorded at onset, during and at the end, they read back whole and in order")
    func roundTrip() throws {
        let (store, id, presentations) = try Self.recorded()
        let stored = try store.presentations(id: id)
        #expect(stored == presentations)
        #expect(stored[2].events.map(\.kind) == [.pause, .resume, .seek, .stall, .stallEnd])
        #expect(stored[2].ending == .cutShort(reason: "the player stopped unexpectedly (exit status 1)"))
        #expect(try store.storedSession(id: id).presentations == presentations)
        // Each playback sample is stored once, however often its presentation was recorded.
        let rows = try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM playbackSample") }
        #expect(rows == presentations.map(\.playback.count).reduce(0, +))
        // A session without presentations reads none.
        let plain = try SessionWriter(database: store, header: Self.header(UUID().uuidString), blendShapeNames: [], recorderPID: 1)
        #expect(try store.presentations(id: plain.sessionID).isEmpty)
    }

    @Test("a presentation index that would leave a gap is refused, and nothing of it is stored")
    func gapRefused() throws {
        let store = try SessionDatabase()
        let writer = try SessionWriter(database: store, header: Self.header(UUID().uuidString), blendShapeNames: [], recorderPID: 1)
        let presentations = StudyPresentations.presentations(begin: Self.begin)
        #expect(throws: StoreError.self) { try writer.record(presentation: presentations[1]) }
        #expect(try store.presentations(id: writer.sessionID).isEmpty)
        try writer.record(presentation: presentations[0])
        try writer.record(presentation: presentations[1])
        #expect(try store.presentations(id: writer.sessionID) == Array(presentations.prefix(2)))
    }

    @Test("the damage check counts them as series: a lost playback sample or presentation is named")
    func damage() throws {
        let (store, id, _) = try Self.recorded()
        #expect(try store.damage(id: id) == nil)
        try store.writer.write { db in
            try db.execute(sql: "DELETE FROM playbackSample WHERE seq = (SELECT MAX(seq) FROM playbackSample)")
        }
        let detail = try #require(try store.damage(id: id))
        #expect(detail.contains("playback samples"), "\(detail)")
        let (other, otherID, _) = try Self.recorded()
        try other.writer.write { db in try db.execute(sql: "DELETE FROM presentation WHERE seq = 2") }
        #expect(try other.damage(id: otherID)?.contains("presentations") == true)
    }

    @Test("lengths stored before the presentation tables existed read as none of their rows")
    func lengthsBeforePresentations() throws {
        let store = try SessionDatabase()
        let writer = try SessionWriter(database: store, header: Self.header(UUID().uuidString), blendShapeNames: [], recorderPID: 1)
        try writer.close(endTimeSeconds: Self.begin + 1, gazerecExtension: nil)
        // As gazerec 8's v7 schema wrote them: no presentation keys.
        try store.writer.write { db in
            try db.execute(sql: #"UPDATE session SET seriesLengths = '{"blinkEvent":0,"expressionSample":0,"frameSample":0,"gazeSample":0,"marker":0}'"#)
        }
        let assessment = try store.assessment(id: writer.sessionID)
        #expect(assessment.detail == nil)
        #expect(assessment.lengthsStored)
    }

    @Test("deleting a session deletes its presentations, events and playback samples")
    func deletion() throws {
        let (store, id, _) = try Self.recorded()
        let otherID = UUID().uuidString
        let other = try SessionWriter(database: store, header: Self.header(otherID), blendShapeNames: [], recorderPID: 1)
        try other.record(presentation: StudyPresentations.presentations(begin: Self.begin)[0])
        _ = try store.delete(ids: [id])
        let counts = try store.writer.read { db in
            try ["presentation", "presentationEvent", "playbackSample"].map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") ?? -1 }
        }
        #expect(counts == [1, 0, StudyPresentations.presentations(begin: Self.begin)[0].playback.count])
        #expect(try store.deleteAll() == 1)
        let left = try store.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM presentation) + (SELECT COUNT(*) FROM playbackSample)")
        }
        #expect(left == 0)
    }
}
