import Foundation
import GazeModel
import JSONStream
import Testing
@testable import SessionStore

/// Expression samples in the store: written with a recording's batches, exported under
/// `"gazerec"."expressions"`, imported back byte for byte, in the CSV, summed per marker
/// interval, and gone with their session.
@Suite("Expression samples in the store")
struct ExpressionStoreTests {
    static let begin = 1_790_000_000.0

    /// Probabilities that put `share` on `name` and the rest evenly on the others.
    static func probabilities(_ name: ExpressionName, _ share: Double) -> ExpressionProbabilities {
        ExpressionProbabilities(values: ExpressionName.allCases.map { $0 == name ? share : (1 - share) / 6 })
    }

    /// A session of 10 frames at 10 Hz: frames 0–5 neutral, 6–9 happy (frame 3 without a face),
    /// smiles rising with the frame, a marker at frame 5.
    static func store() throws -> (SessionDatabase, String) {
        let store = try SessionDatabase()
        let id = UUID().uuidString
        let writer = try SessionWriter(
            database: store,
            header: SessionHeader(id: id, appID: "test", beginTimeSeconds: begin, endTimeSeconds: nil,
                                  deviceInfo: DeviceInfo(model: "test", screenWidth: 1280, screenHeight: 800,
                                                         systemName: "Linux", systemVersion: "6")),
            blendShapeNames: ["mouthSmile_L", "mouthSmile_R"], recorderPID: 1)
        var batch = SampleBatchToAppend()
        for index in 0..<10 {
            let time = begin + Double(index) / 10
            let face = index != 3
            batch.frames.append(FrameMeasurement(timestampSeconds: time, trackingState: face ? .normal : .missing,
                                                 confidence: face ? 0.9 : 0))
            guard face else { continue }
            batch.expressions.append(ExpressionSample(
                timestampSeconds: time, probabilities: probabilities(index < 6 ? .neutral : .happy, 0.625)))
            for (name, value) in [("mouthSmile_L", Double(index) / 10), ("mouthSmile_R", Double(index) / 20)] {
                batch.blendShapes[name, default: []].append(BlendShapeSample(timestampSeconds: time, value: value, orientation: 3))
            }
        }
        try writer.append(batch)
        try store.addMarker(Marker(timestampSeconds: begin + 0.5, label: "stimulus", dataJSON: nil), sessionID: id)
        try writer.close(endTimeSeconds: begin + 1, gazerecExtension: nil)
        return (store, id)
    }

    @Test("exported under gazerec.expressions after the frames, imported back byte for byte")
    func roundTrip() throws {
        let (store, id) = try Self.store()
        let sink = MemoryByteSink()
        try store.export(ids: [id], asArray: false, to: sink)
        let session = try JSONValue.parse(sink.bytes)
        let expressions = session["gazerec"]?["expressions"]?.arrayValue ?? []
        #expect(expressions.count == 9)
        #expect(expressions.first?["timestamp"] == .number(Self.begin))
        #expect(expressions.last?["happy"] == .number(0.625))
        #expect(expressions.first?["happy"] == .number(0.375 / 6))
        let text = sink.text
        let frames = try #require(text.range(of: #""frames":["#)), list = try #require(text.range(of: #""expressions":["#))
        #expect(frames.lowerBound < list.lowerBound)
        #expect(text.contains(#""expressions":[{"timestamp":1790000000,"neutral":0.625,"happy":0.0625,"surprise":0.0625,"#))

        let fresh = try SessionDatabase()
        try fresh.importSessions(from: [.bytes(sink.bytes, name: "x.json")])
        #expect(try fresh.expressionSamples(id: id) == (try store.expressionSamples(id: id)))
        let again = MemoryByteSink()
        try fresh.export(ids: [id], asArray: false, to: again)
        #expect(again.bytes == sink.bytes)
    }

    @Test("a probability outside 0…1, or a sample without every expression, is refused naming where")
    func refused() throws {
        let (store, id) = try Self.store()
        let sink = MemoryByteSink()
        try store.export(ids: [id], asArray: false, to: sink)
        for (from, to, what) in [(#""neutral":0.625"#, #""neutral":1.5"#, "a probability must be 0…1, found 1.5"),
                                 (#","fear":0.0625}"#, "}", "an expression sample needs timestamp and neutral")] {
            let broken = sink.text.replacingOccurrences(of: from, with: to)
            let fresh = try SessionDatabase()
            do {
                try fresh.importSessions(from: [.bytes(Array(broken.utf8), name: "x.json")])
                Issue.record("imported a broken sample")
            } catch {
                #expect("\(error)".contains(what), "\(error)")
                #expect("\(error)".contains("gazerec.expressions[0]") || "\(error)".contains("expressions"), "\(error)")
            }
            #expect(try fresh.summaries().isEmpty)
        }
    }

    @Test("the CSV gets one probability column per expression; rows without a sample leave them empty")
    func csv() throws {
        let (store, id) = try Self.store()
        let sink = MemoryByteSink()
        try store.exportCSV(id: id, to: sink)
        let lines = sink.text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = lines[0]
        #expect(Array(header.suffix(7)) == ["expressionNeutralProbability", "expressionHappyProbability",
                                            "expressionSurpriseProbability", "expressionSadProbability",
                                            "expressionAngryProbability", "expressionDisgustProbability",
                                            "expressionFearProbability"])
        let happy = header.firstIndex(of: "expressionHappyProbability")!
        #expect(lines.count == 11)
        #expect(lines[1][happy] == "0.0625" && lines[4][happy] == "" && lines[10][happy] == "0.625")
        let snake = MemoryByteSink()
        try store.exportCSV(id: id, to: snake, keyStyle: .snakeCase)
        #expect(snake.text.hasPrefix("session_id,") && snake.text.contains(",expression_happy_probability,"))
        // A session without expressions keeps the columns it had.
        let plain = try SessionDatabase()
        let other = try SessionWriter(database: plain, header: SessionHeader(
            id: UUID().uuidString, appID: "t", beginTimeSeconds: 1, endTimeSeconds: nil,
            deviceInfo: DeviceInfo(model: "t", screenWidth: 1, screenHeight: 1, systemName: "Linux", systemVersion: "6")),
            blendShapeNames: [], recorderPID: 1)
        try other.append({ var batch = SampleBatchToAppend(); batch.frames = [FrameMeasurement(timestampSeconds: 1, trackingState: .normal, confidence: 1)]; return batch }())
        let plainCSV = MemoryByteSink()
        try plain.exportCSV(id: other.sessionID, to: plainCSV)
        #expect(!plainCSV.text.contains("expression"))
    }

    @Test("per marker interval: the share of frames each expression dominated, the mean smile")
    func report() throws {
        let (store, id) = try Self.store()
        let report = try #require(try store.expressionReport(id: id))
        // The session: 9 frames with expressions, 5 neutral (0, 1, 2, 4, 5) and 4 happy (6–9).
        #expect(report.session.frames == 9)
        #expect(report.session.share(.neutral) == 0.5556 && report.session.share(.happy) == 0.4444)
        // Smiles: L = i/10, R = i/20 over the 9 frames with a face (sum of i = 42): (4.2 + 2.1) / 18.
        #expect(report.session.meanSmile == (6.3 / 18).rounded(toDecimals: 4))
        let interval = try #require(report.intervals.first)
        #expect(report.intervals.count == 1 && interval.label == "stimulus")
        #expect(interval.start == Self.begin + 0.5 && interval.end == Self.begin + 1)
        // From frame 5 on: 5 (neutral), 6–9 (happy); smiles (35/10 + 35/20) / 10.
        #expect(interval.figures.frames == 5 && interval.figures.share(.happy) == 0.8 && interval.figures.share(.neutral) == 0.2)
        #expect(interval.figures.meanSmile == 0.525)
    }

    @Test("deleting a session deletes its expression samples")
    func deleted() throws {
        let (store, id) = try Self.store()
        _ = try store.delete(ids: [id])
        let left = try store.read("count") { db in try ExpressionTable.count(db, sessionRowID: 1) }
        #expect(left == 0)
        let (other, otherID) = try Self.store()
        _ = try other.deleteAll()
        #expect(try other.read("count") { db in try ExpressionTable.count(db, sessionRowID: 1) } == 0)
        _ = otherID
    }
}
