import Foundation

/// Files of the dataset written whole or not at all: to a temporary sibling, synced, renamed into place.
///
/// A reader never sees half a file, and a failed write leaves no file behind (the sibling is removed).
enum AtomicFile {
    /// Writes `bytes` to `path`, replacing any file there.
    static func write(_ bytes: [UInt8], to path: String) throws {
        try replace(path) { temporary in
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw ioError("create", temporary) }
            defer { close(descriptor) }
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress!, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw ioError("write", temporary)
                }
                offset += written
            }
            guard fsync(descriptor) == 0 else { throw ioError("write", temporary) }
        }
    }

    /// Writes `bytes` gzip-compressed to `path` (the `.tsv.gz` files), replacing any file there.
    static func writeCompressed(_ bytes: [UInt8], to path: String) throws {
        try replace(path) { temporary in
            try Zlib.shared().writeGzip(bytes, to: temporary)
            let descriptor = open(temporary, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ioError("read", temporary) }
            defer { close(descriptor) }
            guard fsync(descriptor) == 0 else { throw ioError("write", temporary) }
        }
    }

    /// Runs `fill` on a temporary sibling of `path`, then renames it to `path`; removes it on failure.
    private static func replace(_ path: String, _ fill: (String) throws -> Void) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp").path
        do {
            try fill(temporary)
            guard rename(temporary, path) == 0 else { throw ioError("write", path) }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    static func ioError(_ action: String, _ path: String) -> BIDSExportError {
        .io(action: action, path: path, reason: String(cString: strerror(errno)))
    }
}

/// zlib's gzip file functions, opened with dlopen on first use (no build-time dependency on its headers).
///
/// gzip's header is written with no file name and a modification time of 0, so equal data gives
/// equal files. THREAD SAFETY: the loaded table is immutable; each write uses its own gzip stream.
final class Zlib: @unchecked Sendable {
    private typealias Open = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>) -> OpaquePointer?
    private typealias Write = @convention(c) (OpaquePointer, UnsafeRawPointer, UInt32) -> Int32
    private typealias Close = @convention(c) (OpaquePointer) -> Int32

    private let gzopen: Open
    private let gzwrite: Write
    private let gzclose: Close

    private static let loaded: Result<Zlib, BIDSExportError> = Result { try Zlib() }.mapError {
        $0 as? BIDSExportError ?? .compressionUnavailable(reason: "\($0)")
    }

    /// The process's one loaded zlib.
    static func shared() throws -> Zlib { try loaded.get() }

    private init() throws {
        guard let library = dlopen("libz.so.1", RTLD_NOW) ?? dlopen("libz.dylib", RTLD_NOW) else {
            throw BIDSExportError.compressionUnavailable(reason: String(cString: dlerror()))
        }
        func symbol<T>(_ name: String, _ type: T.Type) throws -> T {
            guard let address = dlsym(library, name) else {
                throw BIDSExportError.compressionUnavailable(reason: "libz.so.1 has no \(name)")
            }
            return unsafeBitCast(address, to: type)
        }
        gzopen = try symbol("gzopen", Open.self)
        gzwrite = try symbol("gzwrite", Write.self)
        gzclose = try symbol("gzclose", Close.self)
    }

    /// Writes `bytes` to a new gzip file at `path` (compression level 6, zlib's default).
    func writeGzip(_ bytes: [UInt8], to path: String) throws {
        guard let file = gzopen(path, "wb6") else { throw AtomicFile.ioError("create", path) }
        var offset = 0
        var failed = false
        while offset < bytes.count && !failed {
            let length = min(bytes.count - offset, 1 << 20)
            let written = bytes[offset..<(offset + length)].withUnsafeBytes { gzwrite(file, $0.baseAddress!, UInt32(length)) }
            failed = written <= 0
            offset += length
        }
        let closed = gzclose(file)
        guard !failed, closed == 0 else {
            throw BIDSExportError.io(action: "write", path: path, reason: "zlib could not compress or write the file")
        }
    }
}
