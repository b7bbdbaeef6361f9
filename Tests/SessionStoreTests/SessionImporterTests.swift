import Foundation
import GazeModel
import GRDB
import JSONStream
import Testing
import TestSupport
@testable import SessionStore

/// Builds session documents for tests, one field at a time.
func sessionJSON(
    id: String = "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0",
    scanPath: String = #"[{"timestamp":1.5,"x":10,"y":20,"orientation":3}]"#,
    blendShapes: String = #"{"eyeBlink_L":[{"blendShapeLocation":"eyeBlink_L","value":0.25,"timestamp":1.5,"orientation":3}]}"#,
    extra: String = ""
) -> String {
    """
    {"id":"\(id)","appID":"test","beginTime":1,"endTime":2,\
    "deviceInfo":{"model":"cam","screenSize":[1920,1080],"systemName":"Linux","systemVersion":"6.1"},\
    "scanPath":\(scanPath),"blendShapes":\(blendShapes)\(extra)}
    """
}

/// Imports `text` into `database` as a document named `name`.
@discardableResult
func importText(_ database: SessionDatabase, _ text: String, name: String = "doc.json",
                existing: ExistingSessionPolicy = .fail) throws -> ImportReport {
    try database.importSessions(from: [.bytes(Array(text.utf8), name: name)], existing: existing)
}

/// Everything stored, as one comparable text (to show that a failed import changed nothing).
func databaseContents(_ database: SessionDatabase) throws -> String {
    try database.writer.read { db in
        var text = ""
        for table in ["session", "gazeSample", "blendShapeSeries", "blendShapeSample", "frameSample", "blinkEvent"] {
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(table)")
            text += "\(table): \(rows.map(\.description).joined(separator: ";"))\n"
        }
        return text
    }
}

@Suite("Import of EyeTracking JSON")
struct SessionImporterTests {
    @Test("a minimal camelCase session imports with every field")
    func minimalSession() throws {
        // Given an empty database
        let database = try SessionDatabase()
        // When a one-sample session is imported
        let report = try importText(database, sessionJSON(extra: #","gazerec":{"b":[1,2.5,"x"],"a":{"n":null}}"#))
        // Then its header, counts and extension are stored
        #expect(report.imported == ["0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0"])
        let summary = try database.summary(id: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
        #expect(summary.header.appID == "test")
        #expect(summary.header.beginTimeSeconds == 1)
        #expect(summary.header.endTimeSeconds == 2)
        #expect(summary.header.deviceInfo == DeviceInfo(model: "cam", screenWidth: 1920, screenHeight: 1080,
                                                        systemName: "Linux", systemVersion: "6.1"))
        #expect(summary.gazeSampleCount == 1)
        #expect(summary.blendShapeSampleCounts.map(\.name) == ["eyeBlink_L"])
        #expect(summary.header.gazerecExtension?.storedText == #"{"b":[1,2.5,"x"],"a":{"n":null}}"#)
    }

    @Test("snake_case keys are detected without an option")
    func snakeCaseDetected() throws {
        let database = try SessionDatabase()
        let text = #"""
            {"id":"0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0","app_id":"s","begin_time":5,"end_time":null,
             "device_info":{"model":"m","screen_size":[3,4],"system_name":"n","system_version":"v"},
             "scan_path":[{"timestamp":5.5,"x":1,"y":2,"orientation":1,"tracking_state":"limited.lowConfidence"}],
             "blend_shapes":{"eyeBlink_R":[{"blend_shape_location":"eyeBlink_R","value":1,"timestamp":5.5,"orientation":1}]}}
            """#
        try importText(database, text)
        let summary = try database.summary(id: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")
        #expect(summary.header.appID == "s")
        #expect(summary.header.endTimeSeconds == nil)
        #expect(summary.blendShapeSampleCounts.map(\.name) == ["eyeBlink_R"])
        let sink = MemoryByteSink()
        try database.export(ids: [summary.header.id], asArray: false, to: sink)
        #expect(sink.text.contains(#""trackingState":"limited.lowConfidence""#))
    }

    @Test("forced snake_case refuses camelCase keys")
    func forcedSnakeCase() throws {
        let database = try SessionDatabase()
        #expect(throws: StoreError.self) {
            try database.importSessions(from: [.bytes(Array(sessionJSON().utf8), name: "c.json")], keyStyle: .snakeCase)
        }
    }

    @Test("unknown keys are ignored everywhere but inside gazerec, which round-trips")
    func unknownKeysIgnored() throws {
        let database = try SessionDatabase()
        let text = sessionJSON(
            scanPath: #"[{"timestamp":1.5,"x":10,"y":20,"orientation":3,"confidence":[1,{"a":"b"}]}]"#,
            extra: #","note":{"deep":[true,false,null]}"#)
        try importText(database, text)
        #expect(try database.summary(id: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0").gazeSampleCount == 1)
    }

    @Test("an array of sessions imports all of them in file order")
    func arrayOfSessions() throws {
        let database = try SessionDatabase()
        let a = sessionJSON(id: "00000000-0000-0000-0000-00000000000A")
        let b = sessionJSON(id: "00000000-0000-0000-0000-00000000000B")
        let report = try importText(database, "[\(a),\n\(b)]")
        #expect(report.imported == ["00000000-0000-0000-0000-00000000000A", "00000000-0000-0000-0000-00000000000B"])
        #expect(try database.sessionIDs().count == 2)
    }

    @Test("an existing id fails, is replaced, or is skipped as asked")
    func existingPolicies() throws {
        let database = try SessionDatabase()
        try importText(database, sessionJSON())
        // Fail by default, leaving the stored session as it was.
        #expect(throws: StoreError.sessionExists(id: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", source: "doc.json")) {
            try importText(database, sessionJSON(scanPath: "[]"))
        }
        #expect(try database.summary(id: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0").gazeSampleCount == 1)
        // Skip keeps it.
        let skipped = try importText(database, sessionJSON(scanPath: "[]"), existing: .skip)
        #expect(skipped.skipped.count == 1)
        #expect(try database.summary(id: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0").gazeSampleCount == 1)
        // Replace swaps it.
        let replaced = try importText(database, sessionJSON(scanPath: "[]"), existing: .replace)
        #expect(replaced.replaced.count == 1)
        #expect(try database.summary(id: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0").gazeSampleCount == 0)
        #expect(try database.sessionIDs().count == 1)
    }

    /// Each bad document with the path and reason its error must name.
    static let badDocuments: [(name: String, text: String, expected: String)] = [
        ("truncated", String(sessionJSON().dropLast(30)), "truncated"),
        // An empty array is a file with nothing to import, as `calibrations import` says of one.
        ("empty array", "[ ]\n", "it is an empty array, with no session to import"),
        ("string for number", sessionJSON(scanPath: #"[{"timestamp":1,"x":"12","y":2,"orientation":3}]"#),
         "scanPath[0].x: expected a number, found a string"),
        ("12th sample", sessionJSON(scanPath: "[" + (0..<12).map { #"{"timestamp":\#($0),"x":1,"y":2,"orientation":3}"# }
            .joined(separator: ",") + #",{"timestamp":1,"x":"12","y":2,"orientation":3}]"#),
         "scanPath[12].x: expected a number"),
        ("missing id", sessionJSON().replacingOccurrences(of: #""id":"0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0","#, with: ""),
         "missing required key 'id'"),
        ("missing appID", sessionJSON().replacingOccurrences(of: #""appID":"test","#, with: ""), "missing required key 'appID'"),
        ("missing beginTime", sessionJSON().replacingOccurrences(of: #""beginTime":1,"#, with: ""),
         "missing required key 'beginTime'"),
        ("missing deviceInfo", sessionJSON().replacingOccurrences(
            of: #""deviceInfo":{"model":"cam","screenSize":[1920,1080],"systemName":"Linux","systemVersion":"6.1"},"#, with: ""),
         "missing required key 'deviceInfo'"),
        ("missing scanPath", #"{"id":"0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0","appID":"a","beginTime":1,"deviceInfo":{"model":"m","screenSize":[1,2],"systemName":"n","systemVersion":"v"},"blendShapes":{}}"#,
         "missing required key 'scanPath'"),
        ("missing blendShapes", #"{"id":"0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0","appID":"a","beginTime":1,"deviceInfo":{"model":"m","screenSize":[1,2],"systemName":"n","systemVersion":"v"},"scanPath":[]}"#,
         "missing required key 'blendShapes'"),
        ("missing timestamp", sessionJSON(scanPath: #"[{"x":1,"y":2,"orientation":3}]"#), "scanPath[0]: missing required key 'timestamp'"),
        ("missing x", sessionJSON(scanPath: #"[{"timestamp":1,"y":2,"orientation":3}]"#), "scanPath[0]: missing required key 'x'"),
        ("missing y", sessionJSON(scanPath: #"[{"timestamp":1,"x":2,"orientation":3}]"#), "scanPath[0]: missing required key 'y'"),
        ("missing orientation", sessionJSON(scanPath: #"[{"timestamp":1,"x":2,"y":3}]"#),
         "scanPath[0]: missing required key 'orientation'"),
        ("NaN", sessionJSON(scanPath: #"[{"timestamp":1,"x":NaN,"y":3,"orientation":3}]"#),
         "scanPath[0].x: expected a number, found 'N'"),
        ("huge number", sessionJSON(scanPath: #"[{"timestamp":1,"x":1e400,"y":3,"orientation":3}]"#),
         "scanPath[0].x: number 1e400 is out of range"),
        ("bad number", sessionJSON(scanPath: #"[{"timestamp":1,"x":01.5,"y":3,"orientation":3}]"#),
         "scanPath[0].x: '01.5' is not a valid JSON number"),
        ("fractional orientation", sessionJSON(scanPath: #"[{"timestamp":1,"x":1,"y":3,"orientation":2.5}]"#),
         "scanPath[0].orientation: expected an integer"),
        ("blend-shape key mismatch", sessionJSON(
            blendShapes: #"{"eyeBlink_L":[{"blendShapeLocation":"eyeBlink_R","value":0,"timestamp":1,"orientation":3}]}"#),
         "blendShapes.eyeBlink_L[0].blendShapeLocation: 'eyeBlink_R' differs from its series key 'eyeBlink_L'"),
        ("not a UUID", sessionJSON(id: "../../etc/passwd"), "id: '../../etc/passwd' is not a UUID"),
        ("duplicate ids", "[\(sessionJSON()),\(sessionJSON())]", "occurs twice"),
        ("empty", "", "the file is empty"),
        ("whitespace only", "  \n ", "the file is empty"),
        ("not an object", "42", "not EyeTracking JSON: the file begins '42'; expected a session object or an array of sessions"),
        ("a CSV file", "true,1,2\n3,4,5\n", "not EyeTracking JSON: the file begins 'true,1,2';"),
        ("a CSV export", "sessionID,timestamp,x,y,orientation,trackingState,movement,eyeBlink_L\n",
         "not EyeTracking JSON: the file begins 'sessionID,timestamp,x,y,…';"),
        ("trailing data", sessionJSON() + " {}", "unexpected data after the end of the JSON document"),
        ("duplicate key", sessionJSON(extra: #","appID":"again""#), "appID: duplicate key"),
        ("screenSize of one", sessionJSON().replacingOccurrences(of: "[1920,1080]", with: "[1920]"),
         "deviceInfo.screenSize: expected ',' and the height"),
        // Values that parse but cannot be a session (issue "Trust", item 8).
        ("scan path going back in time", sessionJSON(scanPath: #"[{"timestamp":1.5,"x":1,"y":2,"orientation":3},"#
            + #"{"timestamp":1.7,"x":1,"y":2,"orientation":3},{"timestamp":1.6,"x":1,"y":2,"orientation":3}]"#),
         "scanPath[2].timestamp: 1.6 is earlier than the sample before it (1.7); samples are in time order"),
        ("blend shapes going back in time", sessionJSON(blendShapes: #"{"eyeBlink_L":[{"blendShapeLocation":"eyeBlink_L","value":0,"timestamp":1.5,"orientation":3},"#
            + #"{"blendShapeLocation":"eyeBlink_L","value":0,"timestamp":1.25,"orientation":3}]}"#),
         "blendShapes.eyeBlink_L[1].timestamp: 1.25 is earlier than the sample before it (1.5)"),
        ("endTime before beginTime", sessionJSON().replacingOccurrences(of: #""endTime":2"#, with: #""endTime":0.5"#),
         "endTime: 0.5 is before beginTime (1)"),
        ("screen of [0, -5]", sessionJSON().replacingOccurrences(of: "[1920,1080]", with: "[0,-5]"),
         "deviceInfo.screenSize[0]: the width must be a positive number of screen points, found 0"),
        ("negative screen height", sessionJSON().replacingOccurrences(of: "[1920,1080]", with: "[1920,-5]"),
         "deviceInfo.screenSize[1]: the height must be a positive number of screen points, found -5"),
        // Labels and app ids (item 19).
        ("appID with a tab", sessionJSON().replacingOccurrences(of: #""appID":"test""#, with: #""appID":"te\tst""#),
         "appID: contains a control character (U+0009, tab) at character 3"),
        ("appID over the limit", sessionJSON().replacingOccurrences(of: #""appID":"test""#,
                                                                    with: #""appID":""# + String(repeating: "a", count: 1_001) + #"""#),
         "appID: is 1001 characters long; the limit is 1000"),
        ("marker label with NUL", sessionJSON(extra: #","gazerec":{"markers":[{"timestamp":1.5,"label":"on"},{"timestamp":1.6,"label":"a\u0000b"}]}"#),
         "gazerec.markers[1].label: contains a control character (U+0000, NUL) at character 2"),
        // Marker data over the limit `gazerec mark` and the marker feed keep (64 KiB).
        ("marker data over 64 KiB", sessionJSON(extra: #","gazerec":{"markers":[{"timestamp":1.5,"label":"on","data":""#
            + String(repeating: "x", count: 65_535) + #""}]}"#),
         "gazerec.markers[0].data: is 65537 bytes of JSON; the limit is 65536 bytes (64 KiB)"),
    ]

    @Test("bad documents are refused with their path and leave the database as it was",
          arguments: 0..<SessionImporterTests.badDocuments.count)
    func badDocument(index: Int) throws {
        let (name, text, expected) = Self.badDocuments[index]
        // Given a database holding one good session
        let database = try SessionDatabase()
        try importText(database, sessionJSON(id: "11111111-2222-3333-4444-555555555555"))
        let before = try databaseContents(database)
        // When a bad document is imported after a good one in the same batch
        let good = JSONSource.bytes(Array(sessionJSON(id: "99999999-2222-3333-4444-555555555555").utf8), name: "good.json")
        let bad = JSONSource.bytes(Array(text.utf8), name: "bad.json")
        do {
            _ = try database.importSessions(from: [good, bad])
            Issue.record("\(name): import succeeded")
        } catch let error as StoreError {
            // Then the error names the file and the path, and nothing was written
            #expect(error.description.contains("bad.json"), "\(name): \(error)")
            #expect(error.description.contains(expected), "\(name): \(error)")
        }
        #expect(try databaseContents(database) == before, "\(name)")
    }

    @Test("marker data of exactly 64 KiB imports whole, as `gazerec mark` keeps it")
    func markerDataAtTheLimit() throws {
        let database = try SessionDatabase()
        // A JSON string of 65,534 characters and its two quotes: 65,536 bytes of compact JSON.
        let data = #"""# + String(repeating: "x", count: 65_534) + #"""#
        try importText(database, sessionJSON(extra: #","gazerec":{"markers":[{"timestamp":1.5,"label":"on","data":"# + data + "}]}"))
        let markers = try database.markers(id: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")
        #expect(markers.map(\.dataJSON) == [data])
    }

    @Test("a refused label is not echoed whole: a 100,000-character app id gives a short error")
    func longLabelNotEchoed() throws {
        let database = try SessionDatabase()
        let long = String(repeating: "a", count: 100_000)
        do {
            try importText(database, sessionJSON().replacingOccurrences(of: #""appID":"test""#, with: #""appID":"\#(long)""#))
            Issue.record("a 100,000-character app id was imported")
        } catch let error as StoreError {
            #expect(error.description.contains("is 100000 characters long; the limit is 1000"), "\(error)")
            #expect(error.description.count < 300, "\(error.description.count) characters")
        }
        #expect(try database.sessionIDs().isEmpty)
    }

    @Test("snake_case only: a camelCase file is refused naming the snake_case key it lacks, and its own spelling")
    func snakeCaseOnlyNamesTheKey() throws {
        let database = try SessionDatabase()
        do {
            _ = try database.importSessions(from: [.bytes(Array(sessionJSON().utf8), name: "camel.json")], keyStyle: .snakeCase)
            Issue.record("a camelCase document was imported as snake_case")
        } catch let error as StoreError {
            #expect(error.description.contains("missing required key 'app_id' (keys were read as snake_case only; "
                                               + "a camelCase file spells it 'appID')"), "\(error)")
        }
    }

    @Test("non-UTF-8 bytes inside a string are refused")
    func invalidUTF8() throws {
        let database = try SessionDatabase()
        var bytes = Array(sessionJSON().utf8)
        let appIDRange = bytes.firstRange(of: Array(#""test""#.utf8))!
        bytes[appIDRange.lowerBound + 1] = 0xFF
        #expect {
            try database.importSessions(from: [.bytes(bytes, name: "latin1.json")])
        } throws: { error in
            "\(error)".contains("appID: string is not valid UTF-8")
        }
        #expect(try database.sessionIDs().isEmpty)
    }

    @Test("escapes, including surrogate pairs, decode")
    func escapes() throws {
        let database = try SessionDatabase()
        // (A control character such as \n is refused in an app id; see the bad documents.)
        try importText(database, sessionJSON().replacingOccurrences(of: #""appID":"test""#,
                                                                   with: #""appID":"a\"b\\c\u00e9\ud83d\ude00\/""#))
        #expect(try database.summary(id: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0").header.appID == "a\"b\\cé😀/")
    }

    @Test("a directory or a missing file is an I/O error naming the path")
    func fileErrors() throws {
        let database = try SessionDatabase()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(throws: StoreError.io(action: "read", path: folder.url.path, reason: "it is a directory, not a JSON file")) {
            try database.importSessions(from: [.file(folder.url.path)])
        }
        #expect(throws: StoreError.io(action: "read", path: folder.path("none.json"), reason: "No such file or directory")) {
            try database.importSessions(from: [.file(folder.path("none.json"))])
        }
    }
}

@Suite("Reading across chunk boundaries")
struct ChunkBoundaryTests {
    @Test("strings, keys and numbers that straddle the 1 MiB read chunk parse exactly",
          arguments: [0, 1, 2, 3, 5, 8, 13])
    func straddle(shift: Int) throws {
        // Given a document whose samples cross the chunk boundary at every offset around it
        let padding = String(repeating: " ", count: (1 << 20) - 400 + shift)
        var samples: [String] = []
        for index in 0..<40 {
            samples.append(#"{"timestamp":1595626844.0514789,"x":\#(Double(index) + 0.123456789012345),"y":-2.5e-3,"orientation":3,"trackingState":"limited.lowConfidence"}"#)
        }
        let text = sessionJSON(scanPath: "[" + padding + samples.joined(separator: ",") + "]")
        let database = try SessionDatabase()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("big.json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        // When it is imported from a file (read in chunks) and exported again
        try database.importSessions(from: [.file(path)])
        let sink = MemoryByteSink()
        try database.export(ids: ["0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0"], asArray: false, to: sink)
        // Then every value came through
        let scanPath = try #require(try JSONValue.parse(sink.bytes)["scanPath"]?.arrayValue)
        #expect(scanPath.count == 40)
        #expect(scanPath.map { $0["x"] } == (0..<40).map { .number(Double($0) + 0.123456789012345) })
        #expect(scanPath.allSatisfy { $0["trackingState"] == .string("limited.lowConfidence") && $0["y"] == .number(-2.5e-3) })
    }
}

@Suite("Pipelined insertion")
struct PipelinedInsertTests {
    @Test("sessions of several insert batches come back sample for sample, in order")
    func manyBatches() throws {
        // Given 10,000 gaze and 2 × 10,000 blend-shape samples (several 4096-sample batches each)
        let count = 10_000
        let gaze = (0..<count).map { #"{"timestamp":\#(1000 + Double($0) / 60),"x":\#(Double($0) * 0.37),"y":\#(-Double($0)),"orientation":\#($0 % 5)}"# }
        func series(_ name: String) -> String {
            "\"\(name)\":[" + (0..<count).map {
                #"{"blendShapeLocation":"\#(name)","value":\#(Double($0 % 100) / 100),"timestamp":\#(1000 + Double($0) / 60),"orientation":3}"#
            }.joined(separator: ",") + "]"
        }
        let text = sessionJSON(scanPath: "[" + gaze.joined(separator: ",") + "]",
                               blendShapes: "{" + series("eyeBlink_R") + "," + series("eyeBlink_L") + "}")
        let database = try SessionDatabase()
        // When imported and exported again
        let report = try importText(database, text)
        #expect(report.gazeSamples == count)
        #expect(report.blendShapeSamples == 2 * count)
        let sink = MemoryByteSink()
        try database.export(ids: ["0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0"], asArray: false, to: sink)
        // Then the document is the same, value for value and in order
        #expect(try JSONValue.parse(sink.bytes).isEquivalent(to: JSONValue.parse(Array(text.utf8))))
    }

    @Test("an error in the last session of a batch leaves nothing behind")
    func errorAfterBatches() throws {
        let database = try SessionDatabase()
        let gaze = (0..<9000).map { #"{"timestamp":\#($0),"x":1,"y":2,"orientation":3}"# }
        let good = sessionJSON(id: "00000000-0000-0000-0000-000000000001", scanPath: "[" + gaze.joined(separator: ",") + "]")
        let bad = sessionJSON(id: "00000000-0000-0000-0000-000000000002",
                              scanPath: "[" + gaze.joined(separator: ",") + #",{"timestamp":1,"x":true,"y":2,"orientation":3}]"#)
        #expect(throws: StoreError.self) { try importText(database, "[\(good),\(bad)]") }
        #expect(try databaseContents(database) == "session: \ngazeSample: \nblendShapeSeries: \nblendShapeSample: \nframeSample: \nblinkEvent: \n")
    }
}
