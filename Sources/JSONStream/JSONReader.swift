#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a `JSONReader` gets its bytes from.
///
/// Reads in fixed-size chunks, so a reader over a file of any size holds one chunk in memory.
public enum JSONSource: Sendable {
    /// A file path, or `-` for standard input.
    case file(String)
    /// Bytes already in memory (tests, stored extension objects).
    case bytes([UInt8], name: String)
    /// Bytes fetched a chunk at a time (a document stored in parts on a server).
    case chunks(JSONChunkSource, name: String)

    /// The name used in error messages.
    public var displayName: String {
        switch self {
        case .file(let path): return path == "-" ? "<stdin>" : path
        case .bytes(_, let name), .chunks(_, let name): return name
        }
    }
}

/// Hands out a document's bytes in order, a chunk at a time; nil at the end.
public protocol JSONChunkSource: AnyObject, Sendable {
    func nextChunk() throws -> [UInt8]?
}

/// One step of the JSON path reported in errors: `scanPath[12].x`.
public enum JSONPathComponent: Sendable {
    case key(String)
    case index(Int)
}

/// A streaming JSON pull parser over bytes (RFC 8259), reading in chunks so memory stays flat.
///
/// WHAT THIS OBJECT REPRESENTS
///   A cursor in one JSON document. Callers walk the document with `expect`, `readString`,
///   `readNumber`, `readKey` and `skipValue`, and push path components so that every error
///   names the JSON path, line and column where the document went wrong.
/// THREAD SAFETY
///   None: one reader per thread.
public final class JSONReader {
    private static let chunkSize = 1 << 20

    private let sourceName: String
    @exclusivity(unchecked) private var fileDescriptor: Int32 = -1
    @exclusivity(unchecked) private var ownsDescriptor = false
    @exclusivity(unchecked) private var memory: [UInt8] = []
    @exclusivity(unchecked) private var memoryOffset = 0
    /// Where `memory` is refilled from when it runs out (`.chunks`).
    @exclusivity(unchecked) private var chunkSource: JSONChunkSource?

    private let buffer: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var position = 0
    @exclusivity(unchecked) private var end = 0
    @exclusivity(unchecked) private var endOfInput = false

    /// Absolute offset of `buffer[0]` in the document.
    @exclusivity(unchecked) private var bufferStartOffset = 0
    @exclusivity(unchecked) private var line = 1
    @exclusivity(unchecked) private var lineStartOffset = 0

    /// Current JSON path, maintained by the schema walker.
    @exclusivity(unchecked) public var path: [JSONPathComponent] = []
    /// Scratch space for strings and numbers.
    @exclusivity(unchecked) private var scratch: [UInt8] = []

    /// Opens `source`. (If this throws, `deinit` still runs and frees the buffer.)
    public init(source: JSONSource) throws {
        // One byte more than a chunk, for the NUL that lets strtod parse numbers in place.
        buffer = .allocate(capacity: Self.chunkSize + 1)
        sourceName = source.displayName
        scratch.reserveCapacity(256)
        switch source {
        case .bytes(let bytes, _):
            memory = bytes
        case .chunks(let source, _):
            chunkSource = source
        case .file(let path):
            if path == "-" {
                fileDescriptor = 0
            } else {
                var info = stat()
                guard stat(path, &info) == 0 else {
                    let reason = String(cString: strerror(errno))
                    throw JSONError.io(action: "read", path: path, reason: reason)
                }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    throw JSONError.io(action: "read", path: path, reason: "it is a directory, not a JSON file")
                }
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    let reason = String(cString: strerror(errno))
                    throw JSONError.io(action: "read", path: path, reason: reason)
                }
                fileDescriptor = fd
                ownsDescriptor = true
            }
        }
    }

    deinit {
        if ownsDescriptor { close(fileDescriptor) }
        buffer.deallocate()
    }

    // MARK: - Errors

    /// The current path as text: `[3].scanPath[12].x`.
    public var pathDescription: String {
        var text = ""
        for component in path {
            switch component {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// An error at the current position with the current path.
    public func error(_ reason: String) -> JSONError {
        let offset = bufferStartOffset + position
        return .invalid(
            source: sourceName, path: pathDescription, line: line,
            column: offset - lineStartOffset + 1, reason: reason)
    }

    // MARK: - Bytes

    /// Refills the buffer; returns false at the end of input.
    private func refill() throws -> Bool {
        let first = bufferStartOffset == 0 && end == 0
        guard try fill() else { return false }
        if first { skipByteOrderMark() }
        return true
    }

    /// A UTF-8 byte-order mark (EF BB BF, which Windows editors write) before the document is not
    /// part of it: skipped, and columns on the first line count from after it.
    private func skipByteOrderMark() {
        guard end >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF else { return }
        position = 3
        lineStartOffset = 3
    }

    /// Reads the next chunk into the buffer; returns false at the end of input.
    private func fill() throws -> Bool {
        if endOfInput { return false }
        bufferStartOffset += end
        position = 0
        end = 0
        if fileDescriptor >= 0 {
            while true {
                let count = read(fileDescriptor, buffer, Self.chunkSize)
                if count < 0 {
                    if errno == EINTR { continue }
                    let reason = String(cString: strerror(errno))
                    throw JSONError.io(action: "read", path: sourceName, reason: reason)
                }
                if count == 0 { endOfInput = true; return false }
                end = count
                buffer[end] = 0
                return true
            }
        }
        var remaining = memory.count - memoryOffset
        while remaining == 0, let chunkSource {
            guard let chunk = try chunkSource.nextChunk() else { break }
            memory = chunk
            memoryOffset = 0
            remaining = chunk.count
        }
        if remaining == 0 { endOfInput = true; return false }
        let count = min(remaining, Self.chunkSize)
        memory.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + memoryOffset, count: count)
        }
        memoryOffset += count
        end = count
        buffer[end] = 0
        return true
    }

    /// The next byte without consuming it, or nil at the end of input.
    @inline(__always)
    private func peekByte() throws -> UInt8? {
        if position < end { return buffer[position] }
        return try refill() ? buffer[position] : nil
    }

    /// Skips whitespace and returns the next byte without consuming it.
    @inline(__always)
    public func peek() throws -> UInt8? {
        while true {
            if position >= end, !(try refill()) { return nil }
            let byte = buffer[position]
            switch byte {
            case 0x20, 0x09, 0x0D:
                position += 1
            case 0x0A:
                position += 1
                line += 1
                lineStartOffset = bufferStartOffset + position
            default:
                return byte
            }
        }
    }

    /// Whether only whitespace remains.
    public func atEnd() throws -> Bool { try peek() == nil }

    /// Consumes `byte` (after whitespace) or throws naming what was expected.
    @inline(__always)
    public func expect(_ byte: UInt8, _ what: @autoclosure () -> String) throws {
        guard let next = try peek() else { throw error("unexpected end of input, expected \(what())") }
        guard next == byte else { throw error("expected \(what()), found \(Self.describe(next))") }
        position += 1
    }

    /// Consumes `byte` if it is next (after whitespace).
    @inline(__always)
    public func consume(_ byte: UInt8) throws -> Bool {
        if try peek() == byte { position += 1; return true }
        return false
    }

    /// After a member or element: consumes `,` and returns true, or consumes `close` and returns false.
    @inline(__always)
    public func nextSeparator(close: UInt8) throws -> Bool {
        guard let next = try peek() else {
            throw error("unexpected end of input (the file is truncated)")
        }
        position += 1
        if next == 0x2C { return true }
        if next == close { return false }
        position -= 1
        let expected = close == 0x7D ? "',' or '}'" : "',' or ']'"
        throw error("expected \(expected), found \(Self.describe(next))")
    }

    /// A word for the value starting with `byte`, for "expected a number, found a string".
    public static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x22: return "a string"
        case 0x7B: return "an object"
        case 0x5B: return "an array"
        case 0x74, 0x66: return "a boolean"
        case 0x6E: return "null"
        case 0x2D, 0x30...0x39: return "a number"
        case 0x20...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        default: return "byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
    }

    /// What kind of value comes next, for type errors.
    /// The rest of the current line from here, quoted (at most 24 characters): what a file that
    /// is not JSON at all looks like, for an error.
    public func describeStart() throws -> String {
        _ = try peek()
        var bytes: [UInt8] = []
        var index = position
        while index < end, bytes.count < 24, buffer[index] != 0x0A, buffer[index] != 0x0D {
            bytes.append(buffer[index])
            index += 1
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return "'" + text + (index < end && bytes.count == 24 ? "…" : "") + "'"
    }

    public func describeNext() throws -> String {
        guard let next = try peek() else { return "the end of input" }
        return Self.describe(next)
    }

    // MARK: - Strings

    /// Reads a string's raw UTF-8 bytes (escapes decoded) into `scratch`.
    private func readStringBytes(_ what: @autoclosure () -> String) throws {
        guard let first = try peek() else { throw error("unexpected end of input, expected \(what())") }
        guard first == 0x22 else { throw error("expected \(what()), found \(Self.describe(first))") }
        position += 1
        scratch.removeAll(keepingCapacity: true)
        while true {
            // Fast path: copy a run of plain bytes.
            let runStart = position
            while position < end {
                let byte = buffer[position]
                if byte == 0x22 || byte == 0x5C || byte < 0x20 { break }
                position += 1
            }
            if position > runStart {
                scratch.append(contentsOf: UnsafeBufferPointer(start: buffer + runStart, count: position - runStart))
            }
            guard let byte = try peekByte() else { throw error("unterminated string (the file is truncated)") }
            if byte == 0x22 { position += 1; return }
            if byte < 0x20 { throw error("control character inside a string; escape it") }
            if byte != 0x5C { continue }  // the run only stopped at the end of the buffer
            // Escape sequence.
            position += 1
            guard let escaped = try peekByte() else { throw error("unterminated string (the file is truncated)") }
            position += 1
            switch escaped {
            case 0x22, 0x5C, 0x2F: scratch.append(escaped)
            case 0x62: scratch.append(0x08)
            case 0x66: scratch.append(0x0C)
            case 0x6E: scratch.append(0x0A)
            case 0x72: scratch.append(0x0D)
            case 0x74: scratch.append(0x09)
            case 0x75:
                var scalar = try readHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard try peekByte() == 0x5C else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                    position += 1
                    guard try peekByte() == 0x75 else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                    position += 1
                    let low = try readHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired UTF-16 surrogate in \\u escape")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                scratch.append(contentsOf: Array(String(Character(unicode)).utf8))
            default:
                throw error("invalid escape '\\\(Character(Unicode.Scalar(escaped)))' in a string")
            }
        }
    }

    private func readHex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try peekByte() else { throw error("unterminated \\u escape (the file is truncated)") }
            position += 1
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw error("invalid hexadecimal digit in \\u escape")
            }
            value = value << 4 | digit
        }
        return value
    }

    /// Reads a string value; the bytes must be valid UTF-8.
    public func readString(_ what: @autoclosure () -> String = "a string") throws -> String {
        try readStringBytes(what())
        guard let text = String(validating: scratch, as: UTF8.self) else {
            throw error("string is not valid UTF-8; save the file as UTF-8")
        }
        return text
    }

    /// Reads an object key and returns the index of the matching entry of `keys`, or nil if unknown.
    ///
    /// Compares bytes, allocating nothing for known keys. Sets `lastKey` to the key as written.
    public func readKey(matching keys: KeyTable) throws -> Int? {
        try readStringBytes("a key in double quotes")
        let index = scratch.withUnsafeBufferPointer { keys.index(of: $0) }
        if let index {
            lastKey = keys.spelling(index)
        } else {
            guard let text = String(validating: scratch, as: UTF8.self) else {
                throw error("key is not valid UTF-8; save the file as UTF-8")
            }
            lastKey = text
        }
        try expect(0x3A, "':' after a key")
        return index
    }

    /// The key most recently read by `readKey`, as written in the document.
    @exclusivity(unchecked) public private(set) var lastKey = ""

    // MARK: - Numbers

    /// Reads a JSON number as the nearest double; rejects values that overflow to infinity.
    public func readNumber() throws -> Double {
        guard let first = try peek() else { throw error("unexpected end of input, expected a number") }
        guard first == 0x2D || (0x30...0x39).contains(first) else {
            throw error("expected a number, found \(Self.describe(first))")
        }
        // Fast path: the whole number lies inside the buffer, followed by a delimiter (or the NUL sentinel).
        let start = position
        var index = position
        while index < end, Self.isNumberByte(buffer[index]) { index += 1 }
        if index < end || endOfInput {
            let token = UnsafeBufferPointer(start: buffer + start, count: index - start)
            guard Self.isValidNumberSyntax(token) else {
                throw error("'\(String(decoding: token, as: UTF8.self))' is not a valid JSON number")
            }
            let value = (buffer + start).withMemoryRebound(to: CChar.self, capacity: index - start + 1) { strtod($0, nil) }
            guard value.isFinite else {
                throw error("number \(String(decoding: token, as: UTF8.self)) is out of range for a double")
            }
            position = index
            return value
        }
        // Slow path: the number crosses a chunk boundary.
        scratch.removeAll(keepingCapacity: true)
        while let byte = try peekByte() {
            guard Self.isNumberByte(byte) else { return try finishNumber() }
            scratch.append(byte)
            position += 1
        }
        return try finishNumber()
    }

    @inline(__always)
    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x2D, 0x2B, 0x2E, 0x45, 0x65: return true
        default: return false
        }
    }

    private func finishNumber() throws -> Double {
        let valid = scratch.withUnsafeBufferPointer { Self.isValidNumberSyntax($0) }
        guard valid else {
            let text = String(decoding: scratch, as: UTF8.self)
            throw error("'\(text)' is not a valid JSON number")
        }
        scratch.append(0)
        let value = scratch.withUnsafeBufferPointer { bytes in
            bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) { strtod($0, nil) }
        }
        scratch.removeLast()
        guard value.isFinite else {
            let text = String(decoding: scratch, as: UTF8.self)
            throw error("number \(text) is out of range for a double")
        }
        return value
    }

    /// RFC 8259 number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    public static func isValidNumberSyntax(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        func digits() -> Int {
            let start = index
            while index < count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - start
        }
        if index < count, bytes[index] == 0x2D { index += 1 }
        guard index < count else { return false }
        if bytes[index] == 0x30 {
            index += 1
        } else if digits() == 0 {
            return false
        }
        if index < count, bytes[index] == 0x2E {
            index += 1
            if digits() == 0 { return false }
        }
        if index < count, bytes[index] == 0x45 || bytes[index] == 0x65 {
            index += 1
            if index < count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
            if digits() == 0 { return false }
        }
        return index == count
    }

    /// Reads a number that must be an integer (orientation).
    public func readInteger() throws -> Int {
        let value = try readNumber()
        guard value == value.rounded(), abs(value) < 9.0e15 else {
            throw error("expected an integer, found \(value)")
        }
        return Int(value)
    }

    // MARK: - Literals and skipping

    private func expectLiteral(_ literal: StaticString) throws {
        let bytes = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for expected in bytes {
            guard let byte = try peekByte() else { throw error("unexpected end of input (the file is truncated)") }
            guard byte == expected else { throw error("invalid literal; expected '\(literal)'") }
            position += 1
        }
    }

    /// Reads `null` if it is next and returns true.
    public func consumeNull() throws -> Bool {
        guard try peek() == 0x6E else { return false }
        try expectLiteral("null")
        return true
    }

    /// Skips one value of any kind, checking its syntax.
    public func skipValue() throws {
        _ = try readValue(keep: false)
    }

    /// How deep arrays and objects may nest (the document's path included): each level is a
    /// recursion here, and a document of a few thousand `[` would otherwise overflow the stack
    /// (found by fuzzing: `Scripts/fuzz-json.sh`). gazerec's own documents nest six levels deep.
    public static let maximumDepth = 512

    /// Reads one value of any kind into a tree (used for the small `"gazerec"` extension object).
    public func readValue(keep: Bool = true) throws -> JSONValue {
        guard let next = try peek() else { throw error("unexpected end of input, expected a value") }
        if (next == 0x7B || next == 0x5B) && path.count >= Self.maximumDepth {
            path = Array(path.prefix(8)) + [.key("…")]  // where it starts, not 512 steps of it
            throw error("arrays and objects nested more than \(Self.maximumDepth) deep")
        }
        switch next {
        case 0x7B:
            position += 1
            var members: [(String, JSONValue)] = []
            if try consume(0x7D) { return .object(members) }
            repeat {
                let key = try readString("a key in double quotes")
                try expect(0x3A, "':' after a key")
                path.append(.key(key))
                let value = try readValue(keep: keep)
                path.removeLast()
                if keep { members.append((key, value)) }
            } while try nextSeparator(close: 0x7D)
            return .object(members)
        case 0x5B:
            position += 1
            var elements: [JSONValue] = []
            if try consume(0x5D) { return .array(elements) }
            var index = 0
            repeat {
                path.append(.index(index))
                let value = try readValue(keep: keep)
                path.removeLast()
                if keep { elements.append(value) }
                index += 1
            } while try nextSeparator(close: 0x5D)
            return .array(elements)
        case 0x22:
            return .string(try readString())
        case 0x74:
            try expectLiteral("true")
            return .bool(true)
        case 0x66:
            try expectLiteral("false")
            return .bool(false)
        case 0x6E:
            try expectLiteral("null")
            return .null
        case 0x2D, 0x30...0x39:
            return .number(try readNumber())
        default:
            throw error("expected a value, found \(Self.describe(next))")
        }
    }
}

/// A fixed set of object keys matched by bytes, each with its spelling for error paths.
public struct KeyTable: Sendable {
    private let entries: [[UInt8]]
    private let spellings: [String]

    public init(_ keys: [String]) {
        spellings = keys
        entries = keys.map { Array($0.utf8) }
    }

    public func index(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        for (index, entry) in entries.enumerated() where entry.count == bytes.count {
            if entry.withUnsafeBufferPointer({ memcmp($0.baseAddress!, base, bytes.count) == 0 }) {
                return index
            }
        }
        return nil
    }

    public func spelling(_ index: Int) -> String { spellings[index] }
}
