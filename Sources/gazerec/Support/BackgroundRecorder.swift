import Foundation
import Recorder

/// `start --detach`: the same command started again in its own session, in the background.
///
/// The child gets `--notify-fd 3` and writes its session id there once recording runs; its
/// stderr goes to `<database>.recorder.log`, emptied by the child once it holds the recorder lock. Returns when the id arrives, or throws with the
/// child's error line when it exits without one.
enum BackgroundRecorder {
    /// Where a detached recorder of the database at `databasePath` writes its stderr.
    static func logPath(databasePath: String) -> String { RecorderLock.logPath(databasePath: databasePath) }

    static func start(arguments: [String], databasePath: String) throws -> (sessionID: String, pid: pid_t, logPath: String) {
        // A recorder already running: say so before starting anything, its log left alone.
        if let running = RecorderLock.running(databasePath: databasePath) {
            throw RecorderError.alreadyRecording(sessionID: running.sessionID, pid: running.pid, databasePath: databasePath)
        }
        let logPath = logPath(databasePath: databasePath)
        var pipeEnds: [Int32] = [0, 0]
        // Close-on-exec, so only the dup at descriptor 3 reaches the child and EOF means it closed that.
        guard pipe(&pipeEnds) == 0 else { throw RecorderError.startFailed(reason: String(cString: strerror(errno))) }
        let pid: pid_t
        do {
            pid = try spawn(arguments + ["--notify-fd", "3"], databasePath: databasePath, logPath: logPath, pipeEnds: pipeEnds)
        } catch {
            close(pipeEnds[0])
            throw error
        }
        let id = readLine(pipeEnds[0])
        guard !id.isEmpty else {
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            let line = log.split(separator: "\n").last(where: { $0.contains("error:") })
                .map { String($0.drop(while: { $0 != ":" }).dropFirst(1)).replacingOccurrences(of: " error: ", with: "") }
            // The child's own status: a missing --input is 66 with --detach as without it.
            let exited = status & 0x7f == 0
            throw DetachedStartFailure(error: .startFailed(reason: line?.trimmingCharacters(in: .whitespaces) ?? "see \(logPath)"),
                                       childStatus: exited ? (status >> 8) & 0xff : ExitStatus.failure.rawValue)
        }
        return (id, pid, logPath)
    }

    /// Starts this executable with `arguments` in a session of its own: stdin and stdout on /dev/null,
    /// stderr appended to `logPath`, the pipe's write end at descriptor 3 (closed here once started);
    /// its environment is this one's with `GAZEREC_DATABASE` naming the database this one resolved.
    private static func spawn(_ arguments: [String], databasePath: String, logPath: String, pipeEnds: [Int32]) throws -> pid_t {
        // Nothing but the notification pipe (dup'ed to 3) may reach the background recorder: a descriptor it
        // inherited by accident (say, one a parent process watches for EOF) would keep that parent waiting.
        for descriptor in Int32(3)..<Int32(1024) { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        // Appended to, never truncated here: a child that loses the race for the lock must not wipe
        // the running recorder's log. The child empties it once it holds the lock (`--notify-fd`).
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        // Close the read end before the dup: the pipe may have been given descriptor 3 itself.
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc 0x80, hidden from Swift behind _GNU_SOURCE): the recorder leaves this session,
        // so closing the terminal does not stop it.
        posix_spawnattr_setflags(&attributes, Int16(0x80))
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment = ProcessInfo.processInfo.environment
        environment["GAZEREC_DATABASE"] = databasePath
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(pipeEnds[1])
        guard code == 0 else { throw RecorderError.startFailed(reason: String(cString: strerror(code))) }
        return pid
    }

    /// The first line read from `descriptor` (up to its end), trimmed; the descriptor is closed.
    private static func readLine(_ descriptor: Int32) -> String {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 128)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                received += buffer.prefix(count)
                if received.contains(0x0A) { break }
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(descriptor)
        return String(decoding: received, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A background recorder that exited before recording: its error line, and the status it exited
/// with (given by `ExitStatus` in the child), which the starting command exits with too.
struct DetachedStartFailure: RuntimeFailure {
    let error: RecorderError
    let childStatus: Int32
    var description: String { "\(error)" }
}
