import Foundation
import GazeModel
import JSONStream
import Testing
import TestSupport
@testable import SessionStore

@Suite("Export to EyeTracking JSON")
struct SessionExporterTests {
    static let fixtureID = "3BE54760-F1E8-4799-A3CB-78806270E72A"

    func export(_ database: SessionDatabase, _ ids: [String], asArray: Bool = false,
                _ options: ExportOptions = .init()) throws -> Data {
        let sink = MemoryByteSink()
        try database.export(ids: ids, asArray: asArray, to: sink, options: options)
        return Data(sink.bytes)
    }

    @Test("the iOS fixture round-trips value for value, samples in order",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func fixtureRoundTrip() throws {
        // Given the real iOS export imported into an empty database
        let database = try SessionDatabase()
        let report = try database.importSessions(from: [.file(Fixtures.iosSession)])
        #expect(report.imported == [Self.fixtureID])
        #expect(report.gazeSamples == 380)
        #expect(report.blendShapeSamples == 1116)
        // When it is exported again
        let exported = try JSONValue.parse(Array(try export(database, [Self.fixtureID])))
        let original = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.iosSession))))
        // Then the two documents are equal value for value (same keys, same doubles, same order)
        #expect(exported.isEquivalent(to: original))
        #expect(Set(exported.objectKeys ?? []) == Set(original.objectKeys ?? []))
        #expect(exported["scanPath"]?.arrayValue?.count == 380)
        #expect(exported["scanPath"]?.arrayValue?.map { $0["timestamp"] }
                == original["scanPath"]?.arrayValue?.map { $0["timestamp"] })
    }

    @Test("snake_case export converts property keys only and imports back to the same session",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func snakeCaseRoundTrip() throws {
        let database = try SessionDatabase()
        try database.importSessions(from: [.file(Fixtures.iosSession)])
        let snake = try export(database, [Self.fixtureID], ExportOptions(keyStyle: .snakeCase))
        let object = try JSONValue.parse(Array(snake))
        #expect(Set(object.objectKeys ?? []) == ["id", "app_id", "begin_time", "end_time", "scan_path", "blend_shapes", "device_info"])
        #expect(Set(object["device_info"]?.objectKeys ?? []) == ["model", "screen_size", "system_name", "system_version"])
        #expect(object["blend_shapes"]?.objectKeys == ["eyeBlink_L", "eyeBlink_R"])
        #expect(object["blend_shapes"]?["eyeBlink_L"]?.arrayValue?.first?["blend_shape_location"] == .string("eyeBlink_L"))
        #expect(Set(object["scan_path"]?.arrayValue?.first?.objectKeys ?? []) == ["timestamp", "x", "y", "orientation"])

        // The snake_case document imports into a fresh database and exports as the original.
        let fresh = try SessionDatabase()
        try fresh.importSessions(from: [.bytes(Array(snake), name: "snake.json")])
        #expect(try export(fresh, [Self.fixtureID]) == export(database, [Self.fixtureID]))
    }

    @Test("export is byte-stable and pretty output holds the same values",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func byteStable() throws {
        let database = try SessionDatabase()
        try database.importSessions(from: [.file(Fixtures.iosSession)])
        let first = try export(database, [Self.fixtureID])
        #expect(try export(database, [Self.fixtureID]) == first)
        let pretty = try export(database, [Self.fixtureID], ExportOptions(pretty: true))
        #expect(pretty.count > first.count)
        #expect(String(decoding: pretty, as: UTF8.self).contains("\n  \"appID\": \"ios-eye-tracking-example\",\n"))
        #expect(try JSONValue.parse(Array(pretty)) == JSONValue.parse(Array(first)))
    }

    @Test("several ids export as an array; the extension is kept or left out")
    func arrayAndExtension() throws {
        let database = try SessionDatabase()
        let a = sessionJSON(id: "00000000-0000-0000-0000-00000000000A", extra: #","gazerec":{"k":[1,2]}"#)
        let b = sessionJSON(id: "00000000-0000-0000-0000-00000000000B")
        try importText(database, "[\(a),\(b)]")
        let both = try #require(try JSONValue.parse(Array(try export(database, try database.sessionIDs(), asArray: true))).arrayValue)
        #expect(both.count == 2)
        #expect(both[0]["gazerec"] == .object([("k", .array([.number(1), .number(2)]))]))
        #expect(both[1]["gazerec"] == nil)
        let bare = try JSONValue.parse(Array(try export(database, ["00000000-0000-0000-0000-00000000000A"],
                                                        ExportOptions(includeExtension: false))))
        #expect(bare["gazerec"] == nil)
        #expect(bare.objectKeys == ["id", "appID", "beginTime", "endTime", "deviceInfo", "scanPath", "blendShapes"])
    }

    @Test("an unknown id exports nothing")
    func unknownID() throws {
        let database = try SessionDatabase()
        let sink = MemoryByteSink()
        #expect(throws: StoreError.unknownSession(id: "NOPE", databasePath: ":memory:")) {
            try database.export(ids: ["NOPE"], asArray: false, to: sink)
        }
        #expect(sink.bytes.isEmpty)
    }

    @Test("numbers are written in the shortest form that reads back to the same double")
    func shortestNumbers() throws {
        var generator = SystemRandomNumberGenerator()
        let sink = MemoryByteSink()
        let writer = JSONWriter(sink: sink)
        var values: [Double] = [0, -0.0, 1, -1, 834, 1e-7, 123456789.125, 1595626844.0514789, 9_007_199_254_740_993, 1e300,
                                -2.5e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        for _ in 0..<2000 {
            values.append(Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF))
            values.append(Double.random(in: -2000...2000, using: &generator))
        }
        try writer.beginArray()
        for value in values { try writer.element(); try writer.number(value) }
        try writer.endArray()
        try writer.flush()
        let text = sink.text
        #expect(text.hasPrefix("[0,0,1,-1,834,1e-07,123456789.125,1595626844.0514789,"))
        let parsed = text.dropFirst().dropLast().split(separator: ",").map { strtod(String($0), nil) }
        #expect(parsed == values.map { $0 == 0 ? 0 : $0 })
    }

    @Test("strings escape quotes, backslashes and control characters")
    func stringEscapes() throws {
        let sink = MemoryByteSink()
        let writer = JSONWriter(sink: sink)
        try writer.string("a\"b\\c\n\u{1}é")
        try writer.flush()
        #expect(sink.text == #""a\"b\\c\n\u0001é""#)
    }
}
