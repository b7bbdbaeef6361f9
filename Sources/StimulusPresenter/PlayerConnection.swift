import Foundation
import JSONStream

/// mpv's JSON IPC over its Unix socket (`--input-ipc-server`): commands written as one JSON object
/// a line, replies and events read a line at a time, each stamped by `clock` the moment it is read.
/// THREAD SAFETY: `send` may be called from any thread; `read` runs on one thread only.
final class PlayerConnection: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = NSLock()
    private var nextRequestID = 1

    /// Connects to `socketPath`, waiting up to `timeoutSeconds` for the player to create it;
    /// `alive` says whether the player still runs (no point waiting for a dead one).
    init(socketPath: String, timeoutSeconds: Double, alive: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while true {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw PresenterError.playerDidNotStart(reason: String(cString: strerror(errno))) }
            if Self.connect(descriptor, to: socketPath) {
                self.descriptor = descriptor
                return
            }
            close(descriptor)
            guard alive() else { throw PresenterError.playerDidNotStart(reason: "it exited before opening its control socket") }
            guard Date() < deadline else {
                throw PresenterError.playerDidNotStart(reason: "its control socket did not open within \(Int(timeoutSeconds)) s")
            }
            usleep(20_000)
        }
    }

    private static func connect(_ descriptor: Int32, to path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    /// Sends a command (its name and arguments); returns its request id. A closed socket (the player
    /// gone) is not an error here: the reader sees the end and says so.
    @discardableResult
    func send(_ command: [JSONValue]) -> Int {
        lock.lock()
        defer { lock.unlock() }
        let id = nextRequestID
        nextRequestID += 1
        let line = JSONValue.object([("command", .array(command)), ("request_id", .number(Double(id)))]).compactText + "\n"
        var bytes = Array(line.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { break }
            bytes = bytes.dropFirst(written)
        }
        return id
    }

    /// Reads messages until the player closes the socket, handing each with the time it was read.
    func read(clock: () -> Double, _ handle: (PlayerMessage, Double) -> Void) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            let time = clock()
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if let message = PlayerMessage.parse(line) { handle(message, time) }
            }
        }
    }

    /// Ends the connection; a blocked `read` returns.
    func shutDown() {
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    deinit { close(descriptor) }
}
