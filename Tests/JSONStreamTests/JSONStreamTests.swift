import Foundation
import JSONStream
import Testing

@Suite("JSON stream")
struct JSONStreamTests {
    @Test("an error carries source, path, line and column as data")
    func errorAsData() {
        let text = "{\n  \"a\": [1, 2,\n  x]}"
        #expect {
            _ = try JSONValue.parse(Array(text.utf8), name: "doc.json")
        } throws: { error in
            guard case let JSONError.invalid(source, _, line, column, _) = error else { return false }
            return source == "doc.json" && line == 3 && column == 3
        }
    }

    @Test("a UTF-8 byte-order mark before the document is skipped, from memory and from a file; columns count after it")
    func byteOrderMark() throws {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let parsed = try JSONValue.parse(mark + Array(#"{"a": [1, 2]}"#.utf8), name: "windows.json")
        #expect(parsed.compactText == #"{"a":[1,2]}"#)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bom-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(mark + Array("[true]".utf8)).write(to: URL(fileURLWithPath: path))
        let reader = try JSONReader(source: .file(path))
        #expect(try reader.readValue().compactText == "[true]")
        #expect {
            _ = try JSONValue.parse(mark + Array("[x]".utf8), name: "windows.json")
        } throws: { error in
            guard case let JSONError.invalid(_, _, line, column, _) = error else { return false }
            return line == 1 && column == 2
        }
        // A mark anywhere else is not whitespace.
        #expect(throws: JSONError.self) { _ = try JSONValue.parse(Array("[1,".utf8) + mark + Array("2]".utf8), name: "x") }
    }

    @Test("values round-trip with members in order and shortest numbers")
    func roundTrip() throws {
        let text = #"{"b":[1,2.5,"x\n"],"a":{"n":null,"t":true},"c":0.1}"#
        let value = try JSONValue.parse(Array(text.utf8))
        #expect(value.objectKeys == ["b", "a", "c"])
        #expect(value.compactText == text)
    }

    @Test("a missing file is an io error naming it")
    func missingFile() {
        #expect(throws: JSONError.io(action: "read", path: "/nonexistent/x.json", reason: "No such file or directory")) {
            _ = try JSONReader(source: .file("/nonexistent/x.json"))
        }
    }

    @Test("bytes are written as the quoted base64 Foundation writes, every length and remainder")
    func base64MatchesFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        // Lengths around each remainder, and one longer than the writer's buffer.
        for length in Array(0...70) + [801, 3 * 4096 + 1, 70_001] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let sink = MemoryByteSink()
            let writer = JSONWriter(sink: sink)
            try writer.byte(0x78)  // an offset that is not a multiple of four
            try bytes.withUnsafeBytes { try writer.base64String($0) }
            try writer.flush()
            #expect(sink.text == "x\"" + Data(bytes).base64EncodedString() + "\"", "\(length) bytes")
        }
    }

    @Test("numbers are the standard library's shortest digits, also across a buffer boundary")
    func numbersMatchDescription() throws {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0.1, -0.0 + 0.5, 1e-7, 2.2250738585072014e-308, -2.2250738585072014e-308, 1e300,
                                .leastNonzeroMagnitude, -.greatestFiniteMagnitude, 1700000000.0166667]
        for _ in 0..<20_000 {
            values.append(Double(bitPattern: generator.next() & 0xFFEF_FFFF_FFFF_FFFF))
            values.append(Double.random(in: -2000...2000, using: &generator))
        }
        let sink = MemoryByteSink()
        let writer = JSONWriter(sink: sink)
        var expected = ""
        for value in values where value != value.rounded(.towardZero) || abs(value) >= 9_007_199_254_740_992 {
            try writer.number(value)
            try writer.byte(0x20)
            expected += value.description + " "
        }
        try writer.flush()
        #expect(sink.text == expected)
    }
}

extension JSONStreamTests {
    struct Video: Encodable { var path: String; var frames: Int }
    struct Facts: Encodable {
        var version: String
        var focalLength: Double?
        var resolution: [Int]
        var savedVideo: Video?
        var mirrored: Bool
    }

    @Test("a Codable value encodes into JSONValue with members in declaration order, nil optionals left out, integers as integers")
    func valueEncoder() throws {
        let facts = Facts(version: "1.2", focalLength: nil, resolution: [640, 480], savedVideo: Video(path: "v.mkv", frames: 202),
                          mirrored: false)
        let value = try JSONValueEncoder().encode(facts)
        #expect(value == .object([("version", .string("1.2")), ("resolution", .array([.number(640), .number(480)])),
                                  ("savedVideo", .object([("path", .string("v.mkv")), ("frames", .number(202))])),
                                  ("mirrored", .bool(false))]))
        let sink = MemoryByteSink()
        let writer = JSONWriter(sink: sink, pretty: false)
        try writer.value(value)
        try writer.flush()
        #expect(sink.text == #"{"version":"1.2","resolution":[640,480],"savedVideo":{"path":"v.mkv","frames":202},"mirrored":false}"#)
        let tree = JSONValue.object([("z", .null), ("a", .array([.bool(true), .object([])])), ("m", .string("x")), ("n", .number(-1.5))])
        #expect(try JSONValueEncoder().encode(tree) == tree)
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Facts(version: "", focalLength: .nan, resolution: [],
                                                                                  savedVideo: nil, mirrored: true)) }
    }

    @Test("arrays nested 100,000 deep are an error, not a stack overflow; 512 levels still read (found by fuzzing)")
    func deepNesting() throws {
        let deep = Array(repeating: UInt8(ascii: "["), count: 100_000) + Array(repeating: UInt8(ascii: "]"), count: 100_000)
        #expect(throws: JSONError.self) { try JSONValue.parse(deep, name: "deep") }
        let reader = try JSONReader(source: .bytes(Array(#"{"gazerec":{"x":"#.utf8) + deep + Array("}}".utf8), name: "deep"))
        #expect(throws: JSONError.self) { try reader.skipValue() }
        let depth = JSONReader.maximumDepth
        let allowed = Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
        #expect(try JSONValue.parse(allowed).compactText == String(decoding: allowed, as: UTF8.self))
    }
}
