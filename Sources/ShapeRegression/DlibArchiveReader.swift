#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a landmark model file could not be read.
public enum ShapeModelError: Error, Equatable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The bytes are not a dlib shape predictor of the supported version.
    case malformed(path: String, offset: Int, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason):
            return "cannot read the landmark model \(path): \(reason)"
        case let .malformed(path, offset, reason):
            return "the landmark model \(path) is not a dlib shape predictor (byte \(offset): \(reason))"
        }
    }
}

/// Reads values in dlib's portable serialization format (dlib/serialize.h), front to back.
///
/// Integers are a control byte (bits 0–3: how many little-endian magnitude bytes follow, 1…8;
/// bit 7: negative, signed types only) and the bytes. Floating-point numbers are two signed
/// integers, a 64-bit mantissa m and a 16-bit exponent e, meaning m·2^e (e = 32000, 32001,
/// 32002: +∞, −∞, NaN). Matrices are their row and column counts (negative in the current
/// format) and the elements row by row; `std::vector`s their length and the elements.
struct DlibArchiveReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let path: String
    private(set) var offset = 0

    init(bytes: UnsafeBufferPointer<UInt8>, path: String) {
        self.bytes = bytes
        self.path = path
    }

    var isAtEnd: Bool { offset >= bytes.count }

    func error(_ reason: String) -> ShapeModelError { .malformed(path: path, offset: offset, reason: reason) }

    /// The magnitude bytes after a control byte whose low bits say how many follow.
    @inline(__always)
    private mutating func magnitude(count: Int) throws(ShapeModelError) -> UInt64 {
        guard count >= 1, count <= 8 else { throw error("an integer of \(count) bytes") }
        guard offset + count <= bytes.count else { throw error("the file ends inside an integer") }
        var value: UInt64 = 0
        var index = count - 1
        while true {
            value = (value << 8) | UInt64(bytes[offset + index])
            if index == 0 { break }
            index -= 1
        }
        offset += count
        return value
    }

    @inline(__always)
    private mutating func controlByte() throws(ShapeModelError) -> UInt8 {
        guard offset < bytes.count else { throw error("the file ends where an integer should start") }
        let byte = bytes[offset]
        offset += 1
        return byte
    }

    /// A signed integer.
    @inline(__always)
    mutating func signed() throws(ShapeModelError) -> Int64 {
        let control = try controlByte()
        let value = try magnitude(count: Int(control & 0x0F))
        guard value <= UInt64(Int64.max) else { throw error("a signed integer out of range") }
        return control & 0x80 != 0 ? -Int64(value) : Int64(value)
    }

    /// An unsigned integer (a control byte with the sign bit set is an error, as in dlib).
    @inline(__always)
    mutating func unsigned() throws(ShapeModelError) -> UInt64 {
        let control = try controlByte()
        return try magnitude(count: Int(control & 0x8F))
    }

    /// A count or index that must fit in memory.
    mutating func count(atMost limit: Int, _ what: String) throws(ShapeModelError) -> Int {
        let value = try unsigned()
        guard value <= UInt64(limit) else { throw error("\(what) \(value) exceeds \(limit)") }
        return Int(value)
    }

    /// A floating-point number, rounded to `Float` exactly as dlib's `ldexp((float)mantissa, exponent)`.
    @inline(__always)
    mutating func float() throws(ShapeModelError) -> Float {
        guard offset < bytes.count else { throw error("the file ends where a number should start") }
        guard bytes[offset] & 0x70 == 0 else { throw error("a number in dlib's old text format") }
        let mantissa = try signed()
        let exponent = try signed()
        switch exponent {
        case 32000: return .infinity
        case 32001: return -.infinity
        case 32002: return .nan
        default:
            guard exponent >= -32768, exponent <= 32767 else { throw error("a number with exponent \(exponent)") }
            return scalbnf(Float(mantissa), Int32(exponent))
        }
    }

    /// A column of floats (`dlib::matrix<float,0,1>`) of `expected` elements when given.
    mutating func floatColumn(expected: Int? = nil, into output: UnsafeMutablePointer<Float>? = nil)
        throws(ShapeModelError) -> [Float] {
        var rows = try signed()
        var columns = try signed()
        if rows < 0 || columns < 0 {
            rows = -rows
            columns = -columns
        }
        guard columns == 1 || rows == 0 else { throw error("a matrix of \(columns) columns where a column vector belongs") }
        if let expected, rows != Int64(expected) { throw error("a vector of \(rows) values, not \(expected)") }
        guard rows <= 1 << 24 else { throw error("a vector of \(rows) values") }
        if let output {
            for index in 0..<Int(rows) { output[index] = try float() }
            return []
        }
        var values = [Float]()
        values.reserveCapacity(Int(rows))
        for _ in 0..<rows { values.append(try float()) }
        return values
    }
}

/// The whole of a file, read into memory.
func readFile(_ path: String) throws(ShapeModelError) -> [UInt8] {
    guard let file = fopen(path, "rb") else {
        throw .unreadable(path: path, reason: String(cString: strerror(errno)))
    }
    defer { fclose(file) }
    var bytes = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let read = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if read > 0 { bytes.append(contentsOf: chunk[0..<read]) }
        if read < chunk.count {
            if ferror(file) != 0 { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
            break
        }
    }
    return bytes
}
