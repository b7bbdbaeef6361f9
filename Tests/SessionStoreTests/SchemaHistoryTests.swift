import Foundation
import GazeModel
import JSONStream
import Testing
@testable import SessionStore

/// Databases written by earlier gazerec versions (kept in Schemas/, each made by that version's
/// own binary importing the same constructed session) open, migrate and read as today's.
@Suite("Databases of earlier schema versions")
struct SchemaHistoryTests {
    static let sessionID = "0F8D2A3C-5B7E-4C1A-9D2E-6A4B3C2D1E0F"

    /// A copy of a stored file in a fresh folder (the resource stays untouched).
    func copy(_ name: String) throws -> String {
        let source = try #require(Bundle.module.url(forResource: "Schemas/" + name, withExtension: "sqlite"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gazerec-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let target = folder.appendingPathComponent("gazerec.sqlite").path
        try FileManager.default.copyItem(atPath: source.path, toPath: target)
        return target
    }

    func export(_ database: SessionDatabase) throws -> [UInt8] {
        let sink = MemoryByteSink()
        try database.export(ids: [Self.sessionID], asArray: false, to: sink)
        return sink.bytes
    }

    @Test("v1 (sessions and samples only) migrates; its session reads and exports the same after a round trip")
    func version1() throws {
        let database = try SessionDatabase(path: try copy("v1-sessions"))
        let summary = try database.summary(id: Self.sessionID)
        #expect(summary.gazeSampleCount == 6)
        #expect(summary.blendShapeSampleCounts.map(\.name) == ["eyeBlink_L", "eyeBlink_R"])
        #expect(summary.header.gazerecExtension?.formatVersion == 1)
        // Its recorder object lacks members a recorder writes: kept as read, not typed.
        #expect(summary.header.gazerecExtension?.recorder == nil)
        if case .other(let text)? = summary.header.gazerecExtension?["recorder"] {
            #expect(text == #"{"version":"0.1.0","source":"file","input":"constructed.mp4","frames":6}"#)
        } else {
            Issue.record("the recorder member was not kept")
        }
        let scanPath = try database.scanPath(id: Self.sessionID).samples
        #expect(scanPath.prefix(2).allSatisfy { $0.trackingState == .initializing })
        #expect(scanPath.dropFirst(2).allSatisfy { $0.trackingState == .normal })
        let bytes = try export(database)
        let fresh = try SessionDatabase()
        try fresh.importSessions(from: [.bytes(bytes, name: "v1.json")])
        // v1 kept its frames in the extension's text; imported, they fill the frame table, from which
        // the attention figures are derived: the same bytes with that one member added before the frames.
        let again = try export(fresh)
        let text = String(decoding: bytes, as: UTF8.self), textAgain = String(decoding: again, as: UTF8.self)
        let attention = #""attention":{"frames":7,"faceShare":0.8571,"onScreenShare":0.8571,"blinks":1,"longClosures":0,"#
            + #""blinksPerMinute":360,"perclos":0},"#
        #expect(textAgain == text.replacingOccurrences(of: #","frames":["#, with: "," + attention + #""frames":["#))
        let twice = try SessionDatabase()
        try twice.importSessions(from: [.bytes(again, name: "v1-again.json")])
        #expect(try export(twice) == again)
    }

    @Test("v2 (frames and blinks) migrates; frames read back typed, and export round-trips byte for byte")
    func version2() throws {
        let database = try SessionDatabase(path: try copy("v2-frames-blinks"))
        let stored = try database.storedFrames(id: Self.sessionID)
        #expect(stored.frames.count == 7)
        #expect(stored.frames.prefix(2).allSatisfy { $0.trackingState == .initializing })
        #expect(stored.frames[2].headPose == HeadPoseMeasurement(yawDegrees: -3.5, pitchDegrees: 2.25, rollDegrees: 0.5,
                                                                 translation: Vector3(-120, 30, 5200)))
        #expect(stored.frames[6] == FrameMeasurement(timestampSeconds: 1_700_000_000.5 + 6.0 / 30, trackingState: .missing,
                                                     confidence: 0))
        let bytes = try export(database)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""blinks":[{"start":1700000001,"end":1700000001.2,"eyes":"both","kind":"blink","minimumOpenness":0.05}]"#))
        let fresh = try SessionDatabase()
        try fresh.importSessions(from: [.bytes(bytes, name: "v2.json")])
        #expect(try export(fresh) == bytes)
    }

    @Test("v3 (calibrations) opens with its calibration listed and its document whole")
    func version3() throws {
        let database = try SessionDatabase(path: try copy("v3-calibrations"))
        let calibrations = try database.calibrations()
        #expect(calibrations.map(\.id) == ["C0FFEE00-0000-4000-8000-000000000003"])
        #expect(calibrations.first?.pointCount == 5)
        #expect(calibrations.first?.name == "schema-v3")
        let (_, document) = try database.calibration(id: "latest")
        let value = try JSONValue.parse(Array(document.utf8))
        #expect(value["id"] == .string("C0FFEE00-0000-4000-8000-000000000003"))
        #expect(value["model"]?["coefficientsX"]?.arrayValue?.count == 10)
        let bytes = try export(database)
        let fresh = try SessionDatabase()
        try fresh.importSessions(from: [.bytes(bytes, name: "v3.json")])
        #expect(try export(fresh) == bytes)
    }
}
