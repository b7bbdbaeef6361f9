import CZlib
import Foundation
import JSONStream

/// Files of the dataset, written whole or not at all through `AtomicFile`, their failures as
/// `BIDSExportError`s; the `.tsv.gz` tables gzip-compressed by zlib.
enum DatasetFile {
    /// Writes `bytes` to `path`, replacing any file there.
    static func write(_ bytes: [UInt8], to path: String) throws {
        do {
            try AtomicFile.write(bytes, to: path)
        } catch let failure as AtomicFile.Failure {
            throw BIDSExportError.io(action: failure.action, path: failure.path, reason: failure.reason)
        } catch let JSONError.io(action, _, reason) {
            throw BIDSExportError.io(action: action, path: path, reason: reason)
        }
    }

    /// Writes `bytes` gzip-compressed to `path` (the `.tsv.gz` files), replacing any file there.
    static func writeCompressed(_ bytes: [UInt8], to path: String) throws {
        try write(gzip(bytes), to: path)
    }

    /// `bytes` as one gzip member (RFC 1952) at zlib's default level, 6, with no file name and a
    /// modification time of 0, so equal data gives equal files.
    static func gzip(_ bytes: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        // 15 window bits + 16: a gzip header and trailer instead of zlib's.
        var status = deflateInit2_(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                                   Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib deflateInit2 failed (\(status))")
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        status = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = output.baseAddress
                stream.avail_out = uInt(output.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        // deflateBound is room for any input in one call: the stream ends.
        precondition(status == Z_STREAM_END, "zlib deflate did not finish (\(status))")
        return Array(out.prefix(Int(stream.total_out)))
    }
}
