import Foundation

/// Output held back until it is known to be whole: an unnamed temporary file that a writer fills
/// (and may cut back, `takeBack`), then copies on to where the output goes.
extension FileByteSink {
    /// An unnamed temporary file in `$TMPDIR` (else /tmp), open for writing and reading: it has no
    /// name from the moment it is made, so nothing is left behind whatever ends the process.
    public static func spool() throws -> FileByteSink {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/gazerec-spool-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw JSONError.io(action: "create a temporary file in", path: folder, reason: String(cString: strerror(errno)))
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return FileByteSink(descriptor: descriptor, owns: true, name: folder + "/gazerec-spool")
    }

    /// Copies every byte of this file, from its start, to `destination` (this sink must be open
    /// for reading, as `spool()` opens it).
    public func copyAll(to destination: FileByteSink) throws {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw JSONError.io(action: "read", path: name, reason: String(cString: strerror(errno)))
        }
        let capacity = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, capacity)
            if count < 0 {
                if errno == EINTR { continue }
                throw JSONError.io(action: "read", path: name, reason: String(cString: strerror(errno)))
            }
            if count == 0 { return }
            try destination.write(UnsafeRawBufferPointer(start: buffer, count: count))
        }
    }
}
