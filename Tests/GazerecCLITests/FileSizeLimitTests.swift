import Foundation
import Testing
import TestSupport

/// The file-size limit (`ulimit -f`) met by an export, with SIGXFSZ as the shell leaves it (its
/// default action kills the process): a write error said in one line, exit 1, nothing left behind;
/// and what a process killed outright left is removed by the next export.
@Suite("exports at the file-size limit")
struct FileSizeLimitTests {
    /// Runs `gazerec arguments` under a file-size limit of `kibibytes` with SIGXFSZ at its default
    /// action, as a login shell leaves it (a test runner may start us with it ignored, and a shell
    /// cannot undo an ignore it inherited: Python can, before it execs).
    static func limited(_ work: Workspace, kibibytes: Int, _ arguments: [String]) throws -> CommandResult {
        let launcher = """
            import os, resource, signal, sys
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
            resource.setrlimit(resource.RLIMIT_FSIZE, (\(kibibytes * 1024), \(kibibytes * 1024)))
            os.execv(sys.argv[1], sys.argv[1:])
            """
        return try Binary.runProcess("/usr/bin/python3", ["-c", launcher, Binary.gazerec] + arguments,
                                     environment: ["GAZEREC_DATABASE": work.database])
    }

    /// Every path under `root`, relative to it.
    static func everything(_ root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
    }

    /// A process id that names no process any more (a child that has exited and been reaped).
    static func deadProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test("export --format bids past the limit: one line naming the file and the limit, exit 1, no staging folder or temporary file")
    func bidsAtTheLimit() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let id = try work.storeSession(samples: 60_000)
        let root = work.folder.path("dataset")
        let result = try Self.limited(work, kibibytes: 64, ["export", "--format", "bids", root, id, "--subject", "02",
                                                            "--task", "reading"] + BIDSExportCommandTests.iPadScreen)
        #expect(result.status == 1, "status \(result.status): \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && result.stderr.contains("physio.tsv.gz") && result.stderr.contains("file-size limit"),
                "\(result.stderr)")
        // Named where it was to go in the dataset, not in the staging folder that is gone.
        #expect(result.stderr.contains("\(root)/sub-02/beh/sub-02_task-reading_run-1_") && !result.stderr.contains(".gazerec-run-"),
                "\(result.stderr)")
        let left = Self.everything(root).filter { $0.contains(".gazerec-run-") || $0.contains(".tmp-") || $0.contains("_run-") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test("export --output and --output-dir past the limit: one line, exit 1, no file and no .tmp- file")
    func outputAtTheLimit() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let id = try work.storeSession(samples: 20_000)
        let folder = work.folder.path("out")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for arguments in [["--output", "\(folder)/one.json"], ["--format", "csv", "--output", "\(folder)/one.csv"],
                          ["--output-dir", folder]] {
            let result = try Self.limited(work, kibibytes: 64, ["export", id] + arguments)
            #expect(result.status == 1, "\(arguments): status \(result.status): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("file-size limit"),
                    "\(arguments): \(result.stderr)")
            #expect(Self.everything(folder).isEmpty, "\(arguments): \(Self.everything(folder))")
        }
    }

    @Test("a staging folder and temporary files left by a killed export (a dead process id) are removed by the next export")
    func staleStagingRemoved() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let id = try work.storeSession(samples: 600)
        let root = work.folder.path("dataset")
        let dead = try Self.deadProcessID()
        let staging = "\(root)/sub-02/beh/.gazerec-run-\(dead)"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let partial = "\(staging)/sub-02_task-reading_run-1_recording-eye1_physio.tsv.gz.tmp-\(dead)"
        FileManager.default.createFile(atPath: partial, contents: Data(repeating: 7, count: 4096))
        FileManager.default.createFile(atPath: "\(staging)/sub-02_task-reading_run-1_events.tsv", contents: Data("onset\n".utf8))

        let result = try work.run(["export", "--format", "bids", root, id, "--subject", "02", "--task", "reading"]
                                  + BIDSExportCommandTests.iPadScreen)
        #expect(result.status == 0, "\(result.stderr)")
        let files = Self.everything(root)
        #expect(!files.contains { $0.contains(".gazerec-run-") || $0.contains(".tmp-") }, "\(files)")
        #expect(files.contains("sub-02/beh/sub-02_task-reading_run-1_recording-eye1_physio.tsv.gz"), "\(files)")
    }
}
