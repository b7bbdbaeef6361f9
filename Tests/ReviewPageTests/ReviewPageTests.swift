import Foundation
import Testing
import TestSupport

/// `gazerec view` end to end: the server run as a user runs it, its page in headless Chromium driven
/// through chromedriver, its refusals checked with curl. Two imported sessions whose gaze is known
/// (the first follows a white box across a 320×180 stimulus video shown at (100, 50) in a
/// 640×360-point rectangle from marker "video"; the second looks 60 points lower).
@Suite("gazerec view", .serialized)
struct ReviewPageTests {
    static let ready = WebDriver.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") && FileManager.default.isExecutableFile(atPath: "/usr/bin/compare")
    static let reason: Comment = "needs chromium, chromium-driver, ffmpeg, curl and imagemagick (Scripts/setup-system.sh)"
    static let begin = 1_790_000_000.0
    static let videoStart = begin + 1
    static let ids = ["7E000000-0000-0000-0000-000000000001", "7E000000-0000-0000-0000-000000000002"]
    /// The page's first participant colour (#e6194b).
    static let firstColour = (230, 25, 75)

    /// Session `index`'s gaze at `time` (screen points).
    static func gaze(_ index: Int, _ time: Double) -> (x: Double, y: Double) {
        let t = time - videoStart
        guard t >= 0, t < 6 else { return (5, 5) }
        return (100 + 2 * (20 + 40 * t + 20), 50 + 2 * 90 + Double(index) * 60)
    }

    /// The stimulus (VP9 WebM, which Chromium plays), the two sessions, the folders; the server running.
    struct Setup {
        let workspace: Workspace
        let stimuli: String
        let aoiFolder: String
        let server: ViewServer
    }

    static func prepare() throws -> Setup {
        let workspace = try Workspace()
        let stimuli = workspace.folder.path("stimuli"), aoiFolder = workspace.folder.path("aois")
        try FileManager.default.createDirectory(atPath: stimuli, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: aoiFolder, withIntermediateDirectories: true)
        let made = try Binary.runProcess("/usr/bin/ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "color=black:s=320x180:r=30:d=6", "-f", "lavfi", "-i", "color=white:s=40x40:r=30:d=6",
            "-filter_complex", "[0][1]overlay=x='20+40*t':y=70", "-c:v", "libvpx-vp9", "-lossless", "1", stimuli + "/box.webm"])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        // A link inside the folder that leads outside it.
        try FileManager.default.createSymbolicLink(atPath: stimuli + "/escape.webm", withDestinationPath: workspace.database)
        for (index, id) in ids.enumerated() {
            let times = (0..<480).map { begin + Double($0) / 60 }
            let scanPath = times.map { #"{"x":\#(gaze(index, $0).x),"y":\#(gaze(index, $0).y),"timestamp":\#($0),"orientation":3}"# }
            let document = """
                {"id":"\(id)","appID":"p\(index + 1)","beginTime":\(begin),"endTime":\(begin + 8),
                 "deviceInfo":{"model":"m","screenSize":[1280,800],"systemName":"Linux","systemVersion":"6"},
                 "scanPath":[\(scanPath.joined(separator: ","))], "blendShapes":{},
                 "gazerec":{"markers":[{"timestamp":\(videoStart),"label":"video"},{"timestamp":\(videoStart + 3),"label":"half"}]}}
                """
            let file = workspace.folder.path("\(id).json")
            try document.write(toFile: file, atomically: true, encoding: .utf8)
            let imported = try workspace.run(["import", file])
            try #require(imported.status == 0, "\(imported.stderr)")
        }
        let server = try ViewServer(["view", "--database", workspace.database, "--stimuli", stimuli, "--aoi-folder", aoiFolder])
        return Setup(workspace: workspace, stimuli: stimuli, aoiFolder: aoiFolder, server: server)
    }

    /// The HTTP status (and headers) curl gets for `path` with `headers`.
    static func curl(_ url: String, _ headers: [String] = [], method: String = "GET") throws -> (status: Int, headers: String) {
        let result = try Binary.runProcess("/usr/bin/curl", ["-s", "-o", "/dev/null", "-D", "-", "-X", method, "-w", "%{http_code}"]
                                           + headers.flatMap { ["-H", $0] } + [url])
        let status = Int(result.stdout.suffix(3)) ?? 0
        return (status, result.stdout)
    }

    @Test("requests without the token, from a foreign origin or host, or naming a path outside the folders are refused; a stimulus is served in ranges",
          .enabled(if: ready, reason))
    func refusals() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let base = setup.server.base, token = setup.server.token
        // The token is exchanged once for the cookie (a redirect; PresentedPageTests checks it is good once).
        let good = try Self.curl("\(base)/api/sessions?token=\(token)")
        #expect(good.status == 303)
        #expect(good.headers.contains("HttpOnly") && good.headers.contains("SameSite=Strict"), "\(good.headers)")
        #expect(good.headers.contains("default-src 'self'"), "\(good.headers)")
        let cookie = "Cookie: " + (good.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last?.split(separator: ";").first }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "")
        #expect(try Self.curl("\(base)/api/sessions").status == 401)
        #expect(try Self.curl("\(base)/api/sessions", ["Cookie: gazerec_view=wrong"]).status == 401)
        #expect(try Self.curl("\(base)/api/sessions", [cookie]).status == 200)
        #expect(try Self.curl("\(base)/api/sessions", [cookie, "Host: attacker.example:\(setup.server.port)"]).status == 403)
        #expect(try Self.curl("\(base)/api/sessions", [cookie, "Origin: http://attacker.example"]).status == 403)
        #expect(try Self.curl("\(base)/api/sessions", [cookie, "Origin: http://127.0.0.1:\(setup.server.port)"]).status == 200)
        for name in ["0/../../db.sqlite", "0/escape.webm", "1/box.webm", "0/%2E%2E/db.sqlite", "/etc/passwd"] {
            #expect(try Self.curl("\(base)/api/stimulus?name=\(name)", [cookie]).status == 403, "\(name)")
        }
        // A presented file is named only by the hash the server found it under: any other is not there.
        #expect(try Self.curl("\(base)/api/stimulus?presented=../../db.sqlite", [cookie]).status == 404)
        #expect(try Self.curl("\(base)/api/aoi-files/..%2Fescape.json", [cookie]).status == 403)
        #expect(try Self.curl("\(base)/api/aoi-files/x.json", [cookie, "Content-Type: application/json"], method: "PUT").status >= 400)
        let range = try Self.curl("\(base)/api/stimulus?name=0/box.webm", [cookie, "Range: bytes=10-109"])
        #expect(range.status == 206)
        #expect(range.headers.lowercased().contains("content-range: bytes 10-109/"), "\(range.headers)")
    }

    @Test("a session loads; the dot at a scrubbed time is on the stored sample's pixel; an AOI drawn, keyframed and saved gives the metrics of 'stimulus aoi'; screenshots match the references",
          .enabled(if: ready, reason))
    func page() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let browser = try WebDriver()
        try browser.open(setup.server.address)
        try browser.run("return window.gazerecView.ready;")
        let rows = try browser.run("return document.querySelectorAll('#sessions tbody tr').length;") as? Int
        #expect(rows == 2)
        // One session over the screen: its dot at 3.5 s of the session.
        try browser.run("return window.gazerecView.openSessions([arguments[0]], '', '', '').then(() => window.gazerecView.seek(3.5));", [Self.ids[0]])
        let screenScale = 960.0 / 1280
        let sample = Self.gaze(0, Self.begin + 3.5)
        try expectColour(browser, x: sample.x * screenScale, y: sample.y * screenScale, Self.firstColour)
        try compare(browser, "view-session")
        // Both over the stimulus from marker "video", at 2 s of the video.
        try browser.run("""
            return window.gazerecView.openSessions(arguments[0], '0/box.webm', '100,50,640,360', 'video')
              .then(() => window.gazerecView.seek(2));
            """, [Self.ids])
        let stimulusScale = 960.0 / 320 * 320 / 640
        let onStimulus = Self.gaze(0, Self.videoStart + 2)
        try expectColour(browser, x: (onStimulus.x - 100) * stimulusScale, y: (onStimulus.y - 50) * stimulusScale, Self.firstColour)
        try compare(browser, "view-group")
        try drawAOI(browser, setup)
    }

    /// A keyframed rectangle drawn with the mouse over the box at 0 s and at 5 s, saved, and its
    /// metrics in the page against `stimulus aoi` on the saved file.
    func drawAOI(_ browser: WebDriver, _ setup: Setup) throws {
        let scale = 960.0 / 320
        try browser.run("window.gazerecView.seek(0); return true;")
        try browser.click("button[data-tool=rect]")
        try browser.run("document.getElementById('aoi-keyframed').checked = true; document.getElementById('aoi-name').value = 'box'; return 1;")
        func box(_ t: Double) -> ((Int, Int), (Int, Int)) {
            let left = 20 + 40 * t
            return ((Int((left - 5) * scale), Int(65 * scale)), (Int((left + 45) * scale), Int(115 * scale)))
        }
        try browser.drag(on: "#stage", from: box(0).0, to: box(0).1)
        try browser.run("return window.gazerecView.seek(5);")
        try browser.drag(on: "#stage", from: box(5).0, to: box(5).1)
        let keyframes = try browser.run("return window.gazerecView.state.areas[0].keyframes.length;") as? Int
        #expect(keyframes == 2)
        try browser.run("return window.gazerecView.seek(2.5);")
        try compare(browser, "view-aoi-editor")
        try browser.run("document.getElementById('aoi-file').value = 'drawn.json'; return 1;")
        try browser.click("#aoi-save")
        try browser.click("#aoi-metrics")
        var page: Any?
        for _ in 0..<100 {
            page = try browser.run("return window.gazerecView.state.lastMetrics && window.gazerecView.state.lastMetrics.table;")
            if page is [Any] { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let saved = setup.aoiFolder + "/drawn.json"
        #expect(FileManager.default.fileExists(atPath: saved))
        let cli = try setup.workspace.run(["stimulus", "aoi"] + Self.ids + ["--stimulus", setup.stimuli + "/box.webm", "--rect", "100,50,640,360",
                                                                             "--start", "video", "--aois", saved, "--format", "json"])
        try #require(cli.status == 0, "\(cli.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any]
        let expected = document?["rows"] as? [[String: Any]]
        let shown = page as? [[String: Any]]
        #expect(shown?.count == 2 && expected?.count == 2)
        #expect(shown.map { NSArray(array: $0) } == expected.map { NSArray(array: $0) }, "page \(String(describing: shown)) cli \(cli.stdout)")
        // Dwell on the keyframed box: the first participant's gaze follows it for most of the video.
        #expect(((expected?.first?["dwellSeconds"] as? Double) ?? 0) > 4)
    }

    /// The canvas pixel at (x, y) (canvas pixels) is `colour` within 3 levels per channel.
    func expectColour(_ browser: WebDriver, x: Double, y: Double, _ colour: (Int, Int, Int),
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let pixel = try browser.run("""
            return Array.from(document.getElementById('stage').getContext('2d').getImageData(arguments[0], arguments[1], 1, 1).data);
            """, [Int(x.rounded(.down)), Int(y.rounded(.down))]) as? [Int] ?? []
        #expect(pixel.count == 4 && abs(pixel[0] - colour.0) <= 3 && abs(pixel[1] - colour.1) <= 3 && abs(pixel[2] - colour.2) <= 3,
                "pixel at (\(x), \(y)): \(pixel)", sourceLocation: sourceLocation)
    }

    /// The window's screenshot against docs/images/NAME.png: at most 1 % of the pixels may differ by
    /// more than 10 % of the colour range (ImageMagick's `compare -metric AE -fuzz 10%`). With
    /// GAZEREC_UPDATE_REFERENCES=1 the reference is written instead.
    func compare(_ browser: WebDriver, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let shot = try browser.screenshot()
        let reference = ArchitectureRoot.path("docs/images/\(name).png")
        if ProcessInfo.processInfo.environment["GAZEREC_UPDATE_REFERENCES"] == "1" {
            try shot.write(to: URL(fileURLWithPath: reference))
            return
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try shot.write(to: URL(fileURLWithPath: folder.path("shot.png")))
        let result = try Binary.runProcess("/usr/bin/compare", ["-metric", "AE", "-fuzz", "10%", reference, folder.path("shot.png"), "null:"])
        let differing = Double(result.stderr.split(separator: " ").first ?? "") ?? .infinity
        #expect(differing <= 0.01 * 1400 * 1100, "\(name): \(result.stderr) pixels differ from \(reference)", sourceLocation: sourceLocation)
    }
}

/// The repository's root (the reference screenshots live in its docs/images).
enum ArchitectureRoot {
    static func path(_ relative: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(relative).path
    }
}

/// `gazerec view` running: the address it printed (with the token), ended when released.
final class ViewServer {
    let process = Process()
    let address: String
    var base: String { String(address.prefix { $0 != "?" }).trimmingCharacters(in: CharacterSet(charactersIn: "/")) }
    var token: String { String(address.split(separator: "=").last ?? "") }
    var port: String { String(base.split(separator: ":").last ?? "") }

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: Binary.gazerec)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while !text.contains("\n"), Date() < deadline {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        address = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard address.hasPrefix("http://127.0.0.1:") else {
            process.terminate()
            throw WebDriver.DriverError(message: "gazerec view printed \(text)")
        }
    }

    deinit {
        process.interrupt()
        process.waitUntilExit()
    }
}
