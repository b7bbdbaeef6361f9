import Foundation
import GazeCapture
import GazeModel
import JSONStream
import SessionStore

/// Event markers read line by line from a file descriptor (a pipe, a named pipe, a growing log
/// file) while a session records, each stored with the session at the moment its line arrived.
///
/// A line is `LABEL`, or `LABEL<TAB>JSON` to keep data with the marker (at most 64 KiB, as
/// `MarkerDataRule` says); blank lines are ignored.
/// A pipe ends at its end of file. A regular file is followed from its end as it grows, as
/// `tail -F` does, until the recording ends: only lines appended after `start()` are markers (the
/// lines already in it belong to earlier runs, and have no time in this one); a file truncated or
/// replaced under its name (a rotated log) is read again from its start. Each marker is one short transaction beside the recorder's batches, on this
/// feed's own thread: a slow or silent writer never holds up a frame. Lines that arrive after
/// `finish()` are not stored (the session is closed).
/// THREAD SAFETY: `finish()` may be called from any thread; the rest runs on the feed's thread.
public final class MarkerFeed: @unchecked Sendable {
    /// Where the lines come from: its name for messages, and the descriptor to read.
    public struct Input: Sendable {
        public var name: String
        public var descriptor: Int32
        /// The path the descriptor was opened from, to follow a regular file replaced under it; nil for stdin.
        public var path: String?

        public init(name: String, descriptor: Int32, path: String? = nil) {
            self.name = name
            self.descriptor = descriptor
            self.path = path
        }

        /// Opens `path` for reading. A named pipe is opened for reading and writing, so it never
        /// reports an end of file: every writer (each `echo LABEL > pipe`) may come and go.
        public static func open(path: String) throws -> Input {
            var status = stat()
            let isPipe = stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO
            let descriptor = Glibc.open(path, (isPipe ? O_RDWR : O_RDONLY) | O_CLOEXEC)
            guard descriptor >= 0 else { throw MarkerFeedError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
            return Input(name: path, descriptor: descriptor, path: path)
        }
    }

    /// The longest line kept while waiting for its end: a label (at most 1,000 characters) and 64 KiB
    /// of data fit with room to spare; a longer line is skipped up to its end, so a writer that
    /// never sends a newline cannot grow the recorder's memory.
    public static let maximumLineBytes = 256 * 1024

    /// One line the feed could not store as given, and what it did instead.
    public typealias Warning = @Sendable (String) -> Void

    private var input: Input
    private let database: SessionDatabase
    private let sessionID: String
    private let clock: @Sendable () -> Double
    private let warning: Warning
    private let lock = NSLock()
    private var open = true
    private var stored = 0
    private var thread: Thread?

    /// `clock` gives the Unix time a marker is stamped with (its line's arrival).
    public init(input: Input, database: SessionDatabase, sessionID: String,
                clock: @escaping @Sendable () -> Double = { SystemClock.unixTime() }, warning: @escaping Warning) {
        self.input = input
        self.database = database
        self.sessionID = sessionID
        self.clock = clock
        self.warning = warning
    }

    /// Starts reading on the feed's own thread; a regular file from its current end (saying once,
    /// through `warning`, that the lines already in it are skipped).
    public func start() {
        var status = stat()
        if fstat(input.descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG {
            let end = lseek(input.descriptor, 0, SEEK_END)
            if end > 0 {
                let lines = Self.lineCount(input.descriptor, upTo: end)
                warning("\(input.name) already holds \(lines) line\(lines == 1 ? "" : "s") from before this recording: "
                        + "they are skipped, and only lines added from now on become markers")
            }
        }
        let thread = Thread { [self] in run() }
        thread.name = "gazerec markers"
        self.thread = thread
        thread.start()
    }

    /// The lines in the first `end` bytes of `descriptor` (a last line without its newline counts).
    static func lineCount(_ descriptor: Int32, upTo end: off_t) -> Int {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0, lines = 0, last: UInt8 = 0x0A
        while offset < end {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, min($0.count, Int(end - offset)), offset) }
            guard count > 0 else { break }
            lines += buffer[0..<count].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            last = buffer[count - 1]
            offset += off_t(count)
        }
        return lines + (last == 0x0A ? 0 : 1)
    }

    /// Stops storing: lines read from now on are dropped. Returns the number of markers stored.
    @discardableResult
    public func finish() -> Int {
        lock.lock()
        defer { lock.unlock() }
        open = false
        return stored
    }

    private var isOpen: Bool {
        lock.lock()
        defer { lock.unlock() }
        return open
    }

    private func run() {
        var status = stat()
        let follows = fstat(input.descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        var pending: [UInt8] = []
        var skipping = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        var lineNumber = 0
        while isOpen {
            // Wait in short steps, so a feed whose writer stays silent still ends with the recording.
            var poller = pollfd(fd: input.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            let count = read(input.descriptor, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                warning("cannot read markers from \(input.name): \(String(cString: strerror(errno))); no more markers are read")
                break
            }
            if count == 0 {
                guard follows else { break }
                if reopenedOrRewound() { pending.removeAll(); skipping = false }
                usleep(20_000)
                continue
            }
            let time = clock()
            var chunk = buffer[..<count]
            if skipping {
                // The rest of a line past the limit: dropped up to its end.
                guard let newline = chunk.firstIndex(of: 0x0A) else { continue }
                chunk = chunk[(newline + 1)...]
                skipping = false
            }
            pending += chunk
            while let newline = pending.firstIndex(of: 0x0A) {
                lineNumber += 1
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                store(line, number: lineNumber, time: time)
            }
            if pending.count > Self.maximumLineBytes {
                lineNumber += 1
                warning("\(input.name):\(lineNumber): a marker line longer than \(Self.maximumLineBytes / 1024) KiB "
                        + "(a writer that never ends its line?); line skipped")
                pending.removeAll()
                skipping = true
            }
        }
        // A last line without its newline, written before the pipe closed.
        if !pending.isEmpty && isOpen { store(String(decoding: pending, as: UTF8.self), number: lineNumber + 1, time: clock()) }
        close(input.descriptor)
    }

    /// At the end of a followed file: starts again from the beginning when it was truncated, or
    /// opens the file now under its path when it was replaced (`tail -F`). Whether it did either.
    private func reopenedOrRewound() -> Bool {
        var current = stat()
        guard fstat(input.descriptor, &current) == 0 else { return false }
        if let path = input.path {
            var named = stat()
            if stat(path, &named) == 0, (named.st_mode & S_IFMT) == S_IFREG,
               named.st_ino != current.st_ino || named.st_dev != current.st_dev {
                let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
                if descriptor >= 0 {
                    close(input.descriptor)
                    input.descriptor = descriptor
                    return true
                }
            }
        }
        if current.st_size < lseek(input.descriptor, 0, SEEK_CUR) {
            lseek(input.descriptor, 0, SEEK_SET)
            return true
        }
        return false
    }

    private func store(_ line: String, number: Int, time: Double) {
        guard let marker = Self.marker(line, time: time, where: "\(input.name):\(number)", warning: warning) else { return }
        lock.lock()
        defer { lock.unlock() }
        guard open else { return }
        do {
            try database.addMarker(marker, sessionID: sessionID)
            stored += 1
        } catch {
            warning("marker '\(marker.label)' (\(input.name):\(number)) was not stored: \(error)")
        }
    }

    /// The marker a line stands for, nil for a blank line. Data that is not JSON is left out with a warning
    /// (the marker itself is kept: an experiment's timing matters more than its payload).
    static func marker(_ line: String, time: Double, where place: String, warning: Warning) -> Marker? {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        let parts = trimmed.split(separator: "\t", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        let label = parts[0]
        guard !label.isEmpty else {
            warning("\(place): a marker line needs a label before its tab; line skipped")
            return nil
        }
        if let problem = LabelRule.problem(label) {
            warning("\(place): the marker's label \(problem); line skipped")
            return nil
        }
        var data: String?
        if parts.count == 2, !parts[1].isEmpty {
            do {
                let compact = try JSONValue.parse(Array(parts[1].utf8), name: place).compactText
                if let problem = MarkerDataRule.problem(compact) {
                    warning("\(place): marker '\(label)' stored without its data, which \(problem)")
                } else {
                    data = compact
                }
            } catch {
                warning("marker '\(label)' stored without its data, which is not JSON: \(error)")
            }
        }
        return Marker(timestampSeconds: time, label: label, dataJSON: data)
    }
}

/// Why a marker input cannot be read.
public enum MarkerFeedError: Error, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            return "cannot read markers from \(path): \(reason). Give a file, a named pipe (mkfifo) or '-' for stdin."
        }
    }
}
