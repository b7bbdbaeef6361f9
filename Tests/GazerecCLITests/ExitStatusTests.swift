import Foundation
import Testing
import TestSupport

/// One exit-status rule for every command (README, "Exit status"): 66 for a named input that is not
/// there or cannot be read, 65 for one that was read and is not what the command takes, 64 for a
/// command line wrong in itself, 1 for the rest; each failure one line on stderr.
///
/// Each family of commands is run on each kind of input it names: files, folders, the database,
/// stored ids, a lab server's address. Before the rule a missing `--aois` file exited 1 and a
/// malformed one 64, a missing `--stimulus` 1 and a missing `--present` item 64.
@Suite("exit status: one rule for every command's inputs", .enabled(if: Fixtures.available, Fixtures.missingReason))
struct ExitStatusTests {
    /// A command, the status it must exit with, and a part of its one line of error.
    struct Case: CustomStringConvertible {
        var arguments: [String]
        var status: Int32
        var says: String
        var environment: [String: String] = [:]
        var description: String { arguments.joined(separator: " ") }
    }

    /// A store with one session, and inputs beside it: a folder, a text file, malformed JSON, AOIs and a playlist.
    struct Inputs {
        let work: Workspace
        let session: String
        var folder: String { work.folder.path("folder") }
        var text: String { work.folder.path("garbage.txt") }
        var json: String { work.folder.path("bad.json") }
        var aois: String { work.folder.path("aois.json") }
        var playlist: String { work.folder.path("list.txt") }
        var empty: String { work.folder.path("empty.txt") }
        func missing(_ name: String) -> String { work.folder.path("missing-" + name) }

        init() throws {
            work = try Workspace()
            session = try work.storeSession(samples: 120)
            try FileManager.default.createDirectory(atPath: work.folder.path("folder"), withIntermediateDirectories: true)
            try "garbage\n".write(toFile: work.folder.path("garbage.txt"), atomically: true, encoding: .utf8)
            try "not json {\n".write(toFile: work.folder.path("bad.json"), atomically: true, encoding: .utf8)
            try "{\"areas\": 3}\n".write(toFile: work.folder.path("aois.json"), atomically: true, encoding: .utf8)
            try "\(work.folder.path("garbage.txt")) 3\n".write(toFile: work.folder.path("list.txt"), atomically: true, encoding: .utf8)
            try Data().write(to: URL(fileURLWithPath: work.folder.path("empty.txt")))
        }
    }

    static let video = Fixtures.path("video/cap13_blinks_20s.mp4")
    static let image = Fixtures.path("faces/sergey.png")

    /// Runs every case in `inputs`'s workspace: the status, and exactly one line of error saying it.
    static func check(_ cases: [Case], in inputs: Inputs) throws {
        for item in cases {
            let result = try inputs.work.run(item.arguments, environment: item.environment)
            let lines = result.stderr.split(separator: "\n")
            #expect(result.status == item.status, "\(item): exit \(result.status), \(result.stderr)")
            #expect(lines.count == 1 && result.stderr.hasPrefix("gazerec: error: ") && result.stderr.contains(item.says),
                    "\(item): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(item): \(result.stdout)")
        }
    }

    @Test("recording: a missing video, camera, marker file or calibration script exits 66; one that is not one, 65")
    func recording() throws {
        let inputs = try Inputs()
        defer { inputs.work.folder.remove() }
        try Self.check([
            Case(arguments: ["start", "--calibration", "none", "--input", inputs.missing("clip.mp4")], status: 66,
                 says: "cannot open video \(inputs.missing("clip.mp4"))"),
            Case(arguments: ["start", "--calibration", "none", "--input", inputs.folder], status: 66, says: "Is a directory"),
            Case(arguments: ["start", "--detach", "--calibration", "none", "--input", inputs.missing("clip.mp4")], status: 66,
                 says: "the recorder did not start: cannot open video \(inputs.missing("clip.mp4"))"),
            Case(arguments: ["start", "--calibration", "none", "--input", inputs.text], status: 65,
                 says: "cannot open video \(inputs.text): not a readable video or image"),
            Case(arguments: ["start", "--calibration", "none", "--device", inputs.missing("video9")], status: 66,
                 says: "cannot open camera \(inputs.missing("video9")): no such device"),
            Case(arguments: ["start", "--calibration", "none", "--input", Self.video, "--markers-from", inputs.missing("markers")],
                 status: 66, says: "--markers-from \(inputs.missing("markers")): No such file or directory"),
            Case(arguments: ["start", "--input", Self.video, "--calibration", "FFFFFFFF"], status: 66, says: "no calibration FFFFFFFF"),
            Case(arguments: ["devices", inputs.missing("video9")], status: 66, says: "cannot open camera \(inputs.missing("video9")): no such device"),
            Case(arguments: ["analyze", "--input", inputs.missing("clip.mp4")], status: 66, says: "cannot open video"),
            Case(arguments: ["analyze", "--input", Self.video, "--model", inputs.missing("model.dat")], status: 66,
                 says: "cannot load the landmark model \(inputs.missing("model.dat"))"),
            Case(arguments: ["calibrate", "--script", inputs.missing("script.txt"), "--screen", "1920x1080"], status: 66,
                 says: "cannot read calibration script \(inputs.missing("script.txt"))"),
            Case(arguments: ["calibrate", "--script", inputs.text, "--screen", "1920x1080"], status: 65,
                 says: "\(inputs.text):1: unknown directive 'garbage'"),
            Case(arguments: ["reanalyze", "FFFFFFFF"], status: 66, says: "no session FFFFFFFF"),
        ], in: inputs)
    }

    @Test("export, import, delete: a missing database, file or id exits 66; a file that is no session database or no EyeTracking JSON, 65")
    func store() throws {
        let inputs = try Inputs()
        defer { inputs.work.folder.remove() }
        try Self.check([
            Case(arguments: ["list", "--database", inputs.missing("db.sqlite")], status: 66, says: "no session database at"),
            Case(arguments: ["export", inputs.session, "--database", inputs.missing("db.sqlite")], status: 66, says: "no session database at"),
            Case(arguments: ["list", "--database", inputs.folder], status: 66, says: "cannot open the session database in \(inputs.folder)"),
            Case(arguments: ["list", "--database", inputs.text], status: 65, says: "file is not a database"),
            Case(arguments: ["show", inputs.session, "--database", inputs.empty], status: 65, says: "it is empty (0 bytes)"),
            Case(arguments: ["export", "FFFFFFFF"], status: 66, says: "no session FFFFFFFF in \(inputs.work.database)"),
            Case(arguments: ["delete", "FFFFFFFF", "--yes"], status: 66, says: "no session FFFFFFFF"),
            Case(arguments: ["delete", "--app-id", "nobody", "--yes"], status: 66, says: "nobody"),
            Case(arguments: ["calibrations", "export", "FFFFFFFF"], status: 66, says: "no calibration FFFFFFFF"),
            Case(arguments: ["import", inputs.missing("s.json")], status: 66, says: "cannot read \(inputs.missing("s.json"))"),
            Case(arguments: ["import", inputs.folder], status: 66, says: "it is a directory, not a JSON file"),
            Case(arguments: ["import", inputs.json], status: 65, says: "cannot import \(inputs.json): not EyeTracking JSON"),
            Case(arguments: ["calibrations", "import", inputs.missing("c.json")], status: 66, says: "cannot read \(inputs.missing("c.json"))"),
            Case(arguments: ["calibrations", "import", inputs.json], status: 65, says: "not valid JSON"),
        ], in: inputs)
    }

    @Test("stimulus and AOIs: a missing stimulus, AOI or participants file exits 66; a malformed one, 65")
    func stimulus() throws {
        let inputs = try Inputs()
        defer { inputs.work.folder.remove() }
        let shown = ["--rect", "0,0,600,600"]  // sergey.png is 600×600 pixels
        try Self.check([
            Case(arguments: ["stimulus", "timeline", inputs.session, "--stimulus", inputs.missing("clip.mp4")] + shown, status: 66,
                 says: "cannot read the stimulus \(inputs.missing("clip.mp4"))"),
            Case(arguments: ["stimulus", "timeline", inputs.session, "--stimulus", inputs.text] + shown, status: 65,
                 says: "cannot read the stimulus \(inputs.text)"),
            Case(arguments: ["stimulus", "aoi", inputs.session, "--stimulus", Self.image, "--aois", inputs.missing("aois.json")] + shown,
                 status: 66, says: "cannot read the areas of interest file \(inputs.missing("aois.json"))"),
            Case(arguments: ["stimulus", "aoi", inputs.session, "--stimulus", Self.image, "--aois", inputs.folder] + shown,
                 status: 66, says: "it is a folder, not a file"),
            Case(arguments: ["stimulus", "aoi", inputs.session, "--stimulus", Self.image, "--aois", inputs.aois] + shown,
                 status: 65, says: "cannot read the areas of interest in \(inputs.aois)"),
            Case(arguments: ["stimulus", "aoi", inputs.session, "--stimulus", Self.image, "--aois", inputs.json] + shown,
                 status: 65, says: "invalid literal"),
            Case(arguments: ["stimulus", "timeline", inputs.session, "--stimulus", Self.image, "--participants", inputs.missing("p.csv")]
                 + shown, status: 66, says: "cannot read the participants file \(inputs.missing("p.csv"))"),
            Case(arguments: ["stimulus", "timeline", inputs.session, "--stimulus", Self.image, "--participants", inputs.text] + shown,
                 status: 65, says: "its header has no column \"group\""),
            Case(arguments: ["stimulus", "timeline", "FFFFFFFF", "--stimulus", Self.image] + shown, status: 66, says: "no session FFFFFFFF"),
            Case(arguments: ["plot", inputs.session, "--output", inputs.work.folder.path("p.svg"), "--background", inputs.missing("b.png")],
                 status: 66, says: "cannot read \(inputs.missing("b.png"))"),
            Case(arguments: ["plot", inputs.session, "--output", inputs.work.folder.path("p.svg"), "--background", inputs.text],
                 status: 65, says: "--background \(inputs.text) is not a PNG"),
        ], in: inputs)
    }

    @Test("presenter: a missing item exits 66; one FFmpeg cannot play, an empty playlist or a bad line, 65; no display, 64")
    func presenter() throws {
        let inputs = try Inputs()
        defer { inputs.work.folder.remove() }
        // Any DISPLAY passes the first check; every item is checked before the display is opened.
        let display = ["DISPLAY": ":1234"]
        let record = ["start", "--calibration", "none", "--input", Self.video, "--present"]
        try Self.check([
            Case(arguments: record + [inputs.missing("clip.mp4")], status: 66,
                 says: "cannot read the stimulus \(inputs.missing("clip.mp4")): no such file", environment: display),
            Case(arguments: record + [inputs.folder], status: 66, says: "the stimulus \(inputs.folder): FFmpeg reads no video", environment: display),
            Case(arguments: record + [inputs.json], status: 65, says: "cannot play the stimulus \(inputs.json)", environment: display),
            Case(arguments: record + [inputs.empty], status: 65, says: "holds no item", environment: display),
            Case(arguments: record + [inputs.playlist], status: 65, says: "\(inputs.playlist):1:", environment: display),
            Case(arguments: record + [Self.video], status: 64, says: "there is no display to present on",
                 environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""]),
        ], in: inputs)
        #expect(try inputs.work.run(["list", "--ids"]).stdout == inputs.session + "\n", "nothing was recorded")
    }

    @Test("view: a missing folder or database exits 66, as a file where a folder is wanted does")
    func view() throws {
        let inputs = try Inputs()
        defer { inputs.work.folder.remove() }
        try Self.check([
            Case(arguments: ["view", "--stimuli", inputs.missing("stimuli")], status: 66,
                 says: "--stimuli \(inputs.missing("stimuli")): no such folder"),
            Case(arguments: ["view", "--stimuli", inputs.text], status: 66, says: "--stimuli \(inputs.text): it is a file"),
            Case(arguments: ["view", "--database", inputs.work.folder.path("folder")], status: 66, says: "is a folder"),
            Case(arguments: ["view", "--aoi-folder", inputs.missing("aois")], status: 66, says: "no such folder"),
            Case(arguments: ["view", "--database", inputs.missing("db.sqlite")], status: 66, says: "no session database at"),
            Case(arguments: ["view", "--database", inputs.text], status: 65, says: "file is not a database"),
        ], in: inputs)
    }

    @Test("lab server: an id or password file that is not there exits 66, an empty password file 65, a malformed address or one holding a password 64, a server out of reach 1")
    func labServer() throws {
        let inputs = try Inputs()
        defer { inputs.work.folder.remove() }
        let unreachable = "postgres://station@127.0.0.1:1/gazerec"
        try Self.check([
            Case(arguments: ["push", unreachable, "FFFFFFFF"], status: 66, says: "no session FFFFFFFF in \(inputs.work.database)"),
            Case(arguments: ["push", unreachable, inputs.session, "--database", inputs.missing("db.sqlite")], status: 66,
                 says: "no session database at"),
            Case(arguments: ["lab", "add-station", "room-9", "--server", unreachable, "--password-file", inputs.missing("pw")],
                 status: 66, says: "cannot read the password file \(inputs.missing("pw")): no such file"),
            Case(arguments: ["lab", "add-station", "room-9", "--server", unreachable, "--password-file", inputs.empty],
                 status: 65, says: "the password file \(inputs.empty) is empty"),
            Case(arguments: ["push", "postgres://[bad", inputs.session], status: 64, says: "the lab server address postgres://[bad is malformed"),
            Case(arguments: ["push", "postgres://station:secret@127.0.0.1:1/gazerec", inputs.session], status: 64,
                 says: "the server address holds a password"),
            Case(arguments: ["push", unreachable, inputs.session], status: 1, says: "cannot reach the lab server at 127.0.0.1:1"),
        ], in: inputs)
    }
}
