#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON value tree, kept only for small objects (the `"gazerec"` extension); members keep their order.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// Parses one JSON document held in memory (numbers read exactly, as `strtod` does).
    public static func parse(_ bytes: [UInt8], name: String = "<memory>") throws -> JSONValue {
        let reader = try JSONReader(source: .bytes(bytes, name: name))
        let value = try reader.readValue()
        guard try reader.atEnd() else { throw reader.error("unexpected data after the end of the JSON document") }
        return value
    }

    /// Value equality that ignores the order of object members (arrays stay ordered).
    public func isEquivalent(to other: JSONValue) -> Bool {
        switch (self, other) {
        case let (.array(a), .array(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isEquivalent(to: $1) }
        case let (.object(a), .object(b)):
            guard a.count == b.count else { return false }
            let lookup = Dictionary(b, uniquingKeysWith: { first, _ in first })
            return lookup.count == b.count && a.allSatisfy { key, value in
                lookup[key].map { value.isEquivalent(to: $0) } ?? false
            }
        default:
            return self == other
        }
    }

    /// The elements of an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The keys of an object, in order.
    public var objectKeys: [String]? {
        if case .object(let members) = self { return members.map(\.0) }
        return nil
    }

    /// The value as compact JSON text (shortest round-trip numbers, members in order).
    public var compactText: String {
        let sink = MemoryByteSink()
        let writer = JSONWriter(sink: sink)
        // A memory sink cannot fail, and a value tree holds nothing the writer refuses.
        try? writer.value(self)
        try? writer.flush()
        return sink.text
    }

    /// The member named `key` of an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.0 == key })?.1
    }
}

/// Where a `JSONWriter` sends its bytes.
public protocol ByteSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// Writes to a file descriptor (stdout, or a file this object opened and closes).
public final class FileByteSink: ByteSink {
    let descriptor: Int32
    private let ownsDescriptor: Bool
    let name: String

    /// Standard output.
    public static func standardOutput() -> FileByteSink { FileByteSink(descriptor: 1, owns: false, name: "<stdout>") }

    init(descriptor: Int32, owns: Bool, name: String) {
        self.descriptor = descriptor
        self.ownsDescriptor = owns
        self.name = name
    }

    /// Creates (or truncates) `path` for writing.
    public convenience init(creating path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw JSONError.io(action: "create", path: path, reason: String(cString: strerror(errno)))
        }
        self.init(descriptor: fd, owns: true, name: path)
    }

    deinit { if ownsDescriptor { close(descriptor) } }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw JSONError.io(action: "write", path: name, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
    }

    /// Flushes the file to disk (before an atomic rename).
    public func synchronize() throws {
        guard ownsDescriptor else { return }
        if fsync(descriptor) != 0 {
            throw JSONError.io(action: "write", path: name, reason: String(cString: strerror(errno)))
        }
    }
}

/// Taking back what an export wrote when it finds a damaged session partway.
extension FileByteSink {
    /// Where the bytes written from now on begin, for `takeBack(to:)`: the end of a regular file
    /// written at its end; 0 for /dev/null, which keeps nothing; nil where written bytes cannot be
    /// taken back (a pipe, a terminal, a socket, a file written over from inside).
    public func mark() -> Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            if fcntl(descriptor, F_GETFL) & O_APPEND != 0 { return Int64(info.st_size) }
            // Only at the file's end: cutting back inside it would lose what lay after the offset.
            let offset = lseek(descriptor, 0, SEEK_CUR)
            return offset >= 0 && Int64(offset) == Int64(info.st_size) ? Int64(offset) : nil
        case S_IFCHR:
            var null = stat()
            return stat("/dev/null", &null) == 0 && null.st_rdev == info.st_rdev ? 0 : nil
        default:
            return nil
        }
    }

    /// Takes back every byte written since `mark()` returned `mark`: a regular file is cut there
    /// and written on from there (/dev/null kept nothing).
    public func takeBack(to mark: Int64) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        if ftruncate(descriptor, off_t(mark)) != 0 || lseek(descriptor, off_t(mark), SEEK_SET) < 0 {
            throw JSONError.io(action: "write", path: name, reason: String(cString: strerror(errno)))
        }
    }
}

/// Collects bytes in memory (tests and small documents).
public final class MemoryByteSink: ByteSink {
    @exclusivity(unchecked) public private(set) var bytes: [UInt8] = []
    public init() {}
    public func write(_ bytes: UnsafeRawBufferPointer) throws { self.bytes.append(contentsOf: bytes) }
    public var text: String { String(decoding: bytes, as: UTF8.self) }
    /// Empties the sink, keeping its capacity.
    public func reset() { bytes.removeAll(keepingCapacity: true) }
}

/// A buffered JSON emitter: compact or pretty (two-space indent), shortest round-trip numbers.
///
/// Structure (commas, indentation) is the caller's: `beginObject`, `key`, a value, …, `endObject`.
/// Numbers are written in the shortest form that reads back to the same double; integral values
/// below 2^53 in magnitude are written without a fraction (`0`, `834`), as the iOS package does.
public final class JSONWriter {
    private static let capacity = 1 << 16
    private let sink: ByteSink
    private let buffer: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var count = 0
    public let pretty: Bool
    @exclusivity(unchecked) private var depth = 0
    /// Whether the current container already has a member, per depth.
    @exclusivity(unchecked) private var hasMember: [Bool] = [false]

    public init(sink: ByteSink, pretty: Bool = false) {
        self.sink = sink
        self.pretty = pretty
        buffer = .allocate(capacity: Self.capacity)
    }

    deinit { buffer.deallocate() }

    /// Sends buffered bytes to the sink.
    public func flush() throws {
        if count > 0 {
            try sink.write(UnsafeRawBufferPointer(start: buffer, count: count))
            count = 0
        }
    }

    @inline(__always)
    private func ensure(_ needed: Int) throws {
        if count + needed > Self.capacity { try flush() }
    }

    @inline(__always)
    public func byte(_ value: UInt8) throws {
        if count == Self.capacity { try flush() }
        buffer[count] = value
        count += 1
    }

    public func raw(_ text: StaticString) throws {
        let length = text.utf8CodeUnitCount
        try ensure(length)
        (buffer + count).update(from: text.utf8Start, count: length)
        count += length
    }

    /// Bytes already in JSON form (a pre-rendered fragment such as `,"x":`).
    public func rawBytes(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        if bytes.count > Self.capacity {
            try flush()
            try sink.write(UnsafeRawBufferPointer(bytes))
            return
        }
        try ensure(bytes.count)
        (buffer + count).update(from: bytes.baseAddress!, count: bytes.count)
        count += bytes.count
    }

    private func newline() throws {
        guard pretty else { return }
        try ensure(1 + 2 * depth)
        buffer[count] = 0x0A
        count += 1
        for _ in 0..<(2 * depth) {
            buffer[count] = 0x20
            count += 1
        }
    }

    /// Writes `,` if needed and the newline/indent before the next member or element.
    @inline(__always)
    private func separator() throws {
        if hasMember[depth] { try byte(0x2C) } else { hasMember[depth] = true }
        try newline()
    }

    // MARK: Containers

    public func beginObject() throws { try open(0x7B) }
    public func endObject() throws { try close(0x7D) }
    public func beginArray() throws { try open(0x5B) }
    public func endArray() throws { try close(0x5D) }

    private func open(_ bracket: UInt8) throws {
        try byte(bracket)
        depth += 1
        if hasMember.count <= depth { hasMember.append(false) } else { hasMember[depth] = false }
    }

    private func close(_ bracket: UInt8) throws {
        let hadMembers = hasMember[depth]
        depth -= 1
        if hadMembers { try newline() }
        try byte(bracket)
    }

    /// Starts an object member: separator, quoted key, colon.
    public func key(_ name: StaticString) throws {
        try separator()
        try byte(0x22)
        try raw(name)
        if pretty { try raw("\": ") } else { try raw("\":") }
    }

    /// Starts an object member whose key is data (blend-shape names, extension keys).
    public func key(_ name: String) throws {
        try separator()
        try string(name)
        if pretty { try raw(": ") } else { try byte(0x3A) }
    }

    /// Starts an array element.
    public func element() throws { try separator() }

    // MARK: Scalars

    /// A quoted, escaped string.
    public func string(_ value: String) throws {
        var value = value
        try value.withUTF8 { try string(utf8: $0) }
    }

    /// A quoted, escaped string given as its UTF-8 bytes (a database column read in place).
    public func string(utf8 bytes: UnsafeBufferPointer<UInt8>) throws {
        try byte(0x22)
        var runStart = 0
        for index in 0..<bytes.count {
            let unit = bytes[index]
            guard unit == 0x22 || unit == 0x5C || unit < 0x20 else { continue }
            if index > runStart { try rawBytes(UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            switch unit {
            case 0x22: try raw("\\\"")
            case 0x5C: try raw("\\\\")
            case 0x0A: try raw("\\n")
            case 0x0D: try raw("\\r")
            case 0x09: try raw("\\t")
            default:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                try raw("\\u00")
                try byte(hex[Int(unit >> 4)])
                try byte(hex[Int(unit & 0xF)])
            }
            runStart = index + 1
        }
        if bytes.count > runStart { try rawBytes(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count])) }
        try byte(0x22)
    }

    /// Bytes as a quoted base64 string: the standard alphabet with `=` padding and no line breaks,
    /// as Foundation's `base64EncodedString()` writes it, encoded straight into the buffer (the
    /// alphabet needs no JSON escaping).
    public func base64String(_ bytes: UnsafeRawBufferPointer) throws {
        try byte(0x22)
        let pairs = Self.base64Pairs.baseAddress!
        var offset = 0
        let whole = bytes.count - bytes.count % 3
        while offset < whole {
            // As many whole groups as fit the buffer's free space (at least one).
            let groups = min((whole - offset) / 3, 4096)
            try ensure(groups * 4)
            var out = UnsafeMutableRawPointer(buffer + count)
            for _ in 0..<groups {
                let triple = UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
                // Two 12-bit halves, each two characters of the table.
                let value = UInt32(pairs[Int(triple >> 12)]) | UInt32(pairs[Int(triple & 0xFFF)]) << 16
                out.storeBytes(of: value.littleEndian, as: UInt32.self)
                out += 4
                offset += 3
            }
            count += groups * 4
        }
        if offset < bytes.count {
            try ensure(4)
            let first = UInt32(bytes[offset]) << 16
            let triple = offset + 1 < bytes.count ? first | UInt32(bytes[offset + 1]) << 8 : first
            let alphabet = Self.base64Alphabet.utf8Start
            buffer[count] = alphabet[Int(triple >> 18)]
            buffer[count + 1] = alphabet[Int(triple >> 12 & 0x3F)]
            buffer[count + 2] = offset + 1 < bytes.count ? alphabet[Int(triple >> 6 & 0x3F)] : 0x3D
            buffer[count + 3] = 0x3D
            count += 4
        }
        try byte(0x22)
    }

    private static let base64Alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// Every 12-bit value's two base64 characters, first character in the low byte (never
    /// deallocated, never written after it is made).
    nonisolated(unsafe) private static let base64Pairs: UnsafeBufferPointer<UInt16> = {
        let alphabet = base64Alphabet.utf8Start
        let table = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: 4096)
        for index in 0..<4096 { table[index] = UInt16(alphabet[index >> 6]) | UInt16(alphabet[index & 0x3F]) << 8 }
        return UnsafeBufferPointer(table)
    }()

    /// A finite double in its shortest round-trip form.
    public func number(_ value: Double) throws {
        precondition(value.isFinite, "JSON has no NaN or infinity")
        if value == value.rounded(.towardZero), abs(value) < 9_007_199_254_740_992 {
            try integer(Int64(value))
            return
        }
        // The standard library's shortest round-trip digits (the same as `description`), handed
        // over as ASCII bytes straight into the buffer instead of as a String per number.
        try ensure(Self.longestDouble)
        var stream = BufferStream(writer: self)
        value.write(to: &stream)
    }

    /// The longest text `Double.write(to:)` produces (`-2.2250738585072014e-308` is 24 bytes).
    private static let longestDouble = 32

    /// Appends bytes known to fit (space ensured by the caller).
    fileprivate func appendReserved(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(count + bytes.count <= Self.capacity, "a number longer than reserved")
        (buffer + count).update(from: bytes.baseAddress!, count: bytes.count)
        count += bytes.count
    }


    /// An integer.
    public func integer(_ value: Int64) throws {
        try ensure(21)
        if value == 0 {
            buffer[count] = 0x30
            count += 1
            return
        }
        if value < 0 { buffer[count] = 0x2D; count += 1 }
        var magnitude = value.magnitude
        var digitCount = 0
        var probe = magnitude
        while probe > 0 { digitCount += 1; probe /= 10 }
        var index = count + digitCount
        count = index
        while magnitude > 0 {
            index -= 1
            buffer[index] = UInt8(48 + magnitude % 10)
            magnitude /= 10
        }
    }

    public func bool(_ value: Bool) throws { if value { try raw("true") } else { try raw("false") } }
    public func null() throws { try raw("null") }

    /// A value tree (the extension object).
    public func value(_ value: JSONValue) throws {
        switch value {
        case .null: try null()
        case .bool(let flag): try bool(flag)
        case .number(let number): try self.number(number)
        case .string(let text): try string(text)
        case .array(let elements):
            try beginArray()
            for element in elements {
                try self.element()
                try self.value(element)
            }
            try endArray()
        case .object(let members):
            try beginObject()
            for (name, member) in members {
                try key(name)
                try self.value(member)
            }
            try endObject()
        }
    }
}

/// Where `Double.write(to:)` puts its digits: the writer's buffer, with room already made.
private struct BufferStream: TextOutputStream {
    let writer: JSONWriter

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { writer.appendReserved(buffer) }

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { writer.appendReserved($0) }
    }
}
