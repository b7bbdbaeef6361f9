// libFuzzer entry for the streaming JSON reader that `gazerec import` parses every document with
// (Scripts/fuzz-json.sh builds and runs it). Each input is read three ways: as a whole value
// (`JSONValue.parse`), walked as a session document the way the importer walks one (objects by key
// table, samples by number, integer and string), and the same walk over chunks of 1–64 bytes (the
// first input byte chooses the size), so buffer refills fall everywhere. Any trap is a finding; a
// thrown error is the expected answer to bad input.
import JSONStream

final class Chunks: JSONChunkSource, @unchecked Sendable {
    var bytes: [UInt8]
    let size: Int
    init(_ bytes: [UInt8], size: Int) {
        self.bytes = bytes
        self.size = size
    }
    func nextChunk() throws -> [UInt8]? {
        guard !bytes.isEmpty else { return nil }
        let chunk = Array(bytes.prefix(size))
        bytes.removeFirst(chunk.count)
        return chunk
    }
}

let sessionKeys = KeyTable(["id", "appID", "beginTime", "endTime", "deviceInfo", "scanPath", "blendShapes", "gazerec"])
let sampleKeys = KeyTable(["x", "y", "timestamp", "orientation", "trackingState", "value", "blendShapeLocation"])

/// A sample object: numbers, an integer orientation, a string state; anything else skipped.
func walkSample(_ reader: JSONReader) throws {
    try reader.forEachMember(of: "a sample", keys: sampleKeys) { key in
        switch key {
        case 0, 1, 2, 5: _ = try reader.readNumber()
        case 3: _ = try reader.readInteger()
        case 4, 6: if !(try reader.consumeNull()) { _ = try reader.readString() }
        default: try reader.skipValue()
        }
    }
}

/// A session object as the importer reads one.
func walkSession(_ reader: JSONReader) throws {
    try reader.forEachMember(of: "a session", keys: sessionKeys) { key in
        switch key {
        case 0, 1: _ = try reader.readString()
        case 2, 3: _ = try reader.readNumber()
        case 5: try reader.forEachElement(of: "an array") { _ in try walkSample(reader) }
        case 6:
            try reader.forEachMember(of: "an object", keys: sampleKeys) { _ in
                try reader.forEachElement(of: "an array") { _ in try walkSample(reader) }
            }
        case 7: _ = try reader.readValue(keep: true)
        default: try reader.skipValue()
        }
    }
}

func walkDocument(_ reader: JSONReader) throws {
    if try reader.peek() == 0x5B {
        try reader.forEachElement(of: "sessions") { _ in try walkSession(reader) }
    } else {
        try walkSession(reader)
    }
    _ = try reader.atEnd()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? JSONValue.parse(bytes, name: "fuzz")
    if let reader = try? JSONReader(source: .bytes(bytes, name: "fuzz")) { try? walkDocument(reader) }
    if let first = bytes.first {
        let chunks = Chunks(Array(bytes.dropFirst()), size: Int(first % 64) + 1)
        if let reader = try? JSONReader(source: .chunks(chunks, name: "fuzz")) { try? walkDocument(reader) }
    }
    return 0
}
