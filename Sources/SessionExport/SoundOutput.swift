import Foundation
import JSONStream
import SessionStore

/// Writing exports so that no byte of a damaged session stays in the output.
///
/// An export checks each session as it reads it (`SessionDatabase.export`, `exportCSV`) and throws
/// `StoreError.damagedSession` part-way, after some of the session was written: damage SQLite
/// finds only when it decodes a row (a corrupt cell or overflow page) cannot be seen by counting
/// rows beforehand. So the bytes written are taken back instead: a regular file is cut back
/// (`FileByteSink.takeBack`); a pipe, a terminal or a file written over from inside cannot be, so
/// the export goes first into an unnamed temporary file (`FileByteSink.spool`) and is copied on
/// only once every session in it was read whole.
enum SoundOutput {
    /// Runs `write(ids, sink)`, an export of the sessions `ids`, so that no byte of a damaged
    /// session reaches `destination`: with `.refuse` a damaged session is thrown and nothing is
    /// written; with `.leaveOut` the export runs again without it. Returns the errors of the
    /// sessions left out.
    static func write(_ ids: [String], to destination: FileByteSink, damaged: DamagedSessions,
                      _ write: (_ ids: [String], _ sink: FileByteSink) throws -> Void) throws -> [StoreError] {
        if let start = destination.mark() {
            return try writeTakingBack(ids, to: destination, from: start, damaged: damaged, write)
        }
        let spool = try guarded { try FileByteSink.spool() }
        let leftOut = try writeTakingBack(ids, to: spool, from: 0, damaged: damaged, write)
        try guarded { try spool.copyAll(to: destination) }
        return leftOut
    }

    /// `write(ids:…)` into a sink whose bytes since `start` can be taken back.
    private static func writeTakingBack(_ ids: [String], to sink: FileByteSink, from start: Int64, damaged: DamagedSessions,
                                        _ write: (_ ids: [String], _ sink: FileByteSink) throws -> Void) throws -> [StoreError] {
        var remaining = ids
        var leftOut: [StoreError] = []
        while true {
            do {
                try write(remaining, sink)
                return leftOut
            } catch let error as StoreError {
                guard case .damagedSession(let id, _, _) = error else { throw error }
                try guarded { try sink.takeBack(to: start) }
                guard damaged == .leaveOut, let index = remaining.firstIndex(of: id) else { throw error }
                leftOut.append(error)
                remaining.remove(at: index)
            }
        }
    }

    /// Writes one file per session, `folder/<id>.<fileExtension>` (`ids` are full ids), each
    /// through `write` and `OutputFile.writeAtomically`, so a damaged session leaves no file. With
    /// `.refuse` and several sessions, all or none: every file is written beside its place first
    /// and renamed into it only once every session was read whole. Returns the paths written and
    /// the errors of the sessions left out.
    static func writeEach(_ ids: [String], toFolder folder: String, fileExtension: String, damaged: DamagedSessions,
                          _ write: (_ id: String, _ sink: FileByteSink) throws -> Void) throws
        -> (written: [String], leftOut: [StoreError]) {
        try OutputFile.createFolder(folder)
        let targets = ids.map { (folder as NSString).appendingPathComponent("\($0).\(fileExtension)") }
        if damaged == .refuse, ids.count > 1 {
            return (try writeAllOrNone(zip(ids, targets).map { $0 }, write), [])
        }
        var written: [String] = []
        var leftOut: [StoreError] = []
        for (id, target) in zip(ids, targets) {
            do {
                try OutputFile.writeAtomically(to: target) { try write(id, $0) }
                written.append(target)
            } catch let error as StoreError {
                guard case .damagedSession = error, damaged == .leaveOut else { throw error }
                leftOut.append(error)
            }
        }
        return (written, leftOut)
    }

    /// Writes each session's file under a temporary name beside its place (`<file>.tmp-<pid>`,
    /// removed by a signal or by the next write of that file), then renames them all into place:
    /// a session found damaged while it is read leaves no file of any session.
    private static func writeAllOrNone(_ files: [(id: String, target: String)],
                                       _ write: (_ id: String, _ sink: FileByteSink) throws -> Void) throws -> [String] {
        let staged = files.map { $0.target + AtomicFile.temporarySuffix + "\(getpid())" }
        staged.forEach(TemporaryFiles.register)
        defer {
            for path in staged {
                unlink(path)
                TemporaryFiles.unregister(path)
            }
        }
        for (file, path) in zip(files, staged) {
            try OutputFile.writeAtomically(to: path) { try write(file.id, $0) }
        }
        for (file, path) in zip(files, staged) where rename(path, file.target) != 0 {
            throw StoreError.io(action: "write", path: file.target, reason: String(cString: strerror(errno)))
        }
        return files.map(\.target)
    }

    /// Runs `body`, its `JSONError` (the sinks' failures) told as a `StoreError`.
    private static func guarded<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as JSONError {
            throw StoreError(error)
        }
    }
}

/// What an export does with a damaged session among those asked for.
enum DamagedSessions: Sendable {
    /// Writes nothing and throws the session's `StoreError.damagedSession`.
    case refuse
    /// Writes the others and returns the damaged ones' errors.
    case leaveOut
}
