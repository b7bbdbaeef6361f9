import Foundation
import GazeModel
import SessionStore
import Testing
import TestSupport

/// The page over sessions that stored their presentations (`gazerec start --present`): the real
/// iPad recording of the shared fixtures imported twice, each time with a `gazerec.presentations`
/// member whose video is a small VP9 clip made here (a white 40×40 box moving right at 40 px/s on
/// black, 320×180, 6 s) kept in the stimulus folder under another name (found by its hash). The
/// first session paused it, sought back and stalled, then showed an image that is in no stimulus
/// folder; the second played it through at another place on the screen.
extension ReviewPageTests {
    static var presentedReady: Bool { ready && Fixtures.available }
    static let presentedReason: Comment = "needs ../shared/fixtures, chromium, chromium-driver, ffmpeg, curl and imagemagick (Scripts/setup-system.sh)"
    static let presentedIDs = ["7E000000-0000-0000-0000-0000000000A1", "7E000000-0000-0000-0000-0000000000A2"]

    /// A stretch of a schedule: from `from` to `to` (seconds after the session's begin) the video
    /// advances from `position` at rate 1 (`playing`) or holds there.
    struct Stretch {
        var from: Double, to: Double, position: Double, playing: Bool
    }

    static let schedules: [[Stretch]] = [
        [Stretch(from: 1, to: 3, position: 0, playing: true), Stretch(from: 3, to: 4.5, position: 2, playing: false),
         Stretch(from: 4.5, to: 5.5, position: 2, playing: true), Stretch(from: 5.5, to: 7.5, position: 1, playing: true),
         Stretch(from: 7.5, to: 8, position: 3, playing: false), Stretch(from: 8, to: 9.5, position: 3, playing: true)],
        [Stretch(from: 2, to: 8, position: 0, playing: true)],
    ]
    static let rects: [[Double]] = [[100, 150, 640, 360], [0, 100, 960, 540]]

    /// The `gazerec.presentations` member of session `index` (as docs/ExportFormat.md spells it).
    static func presentations(_ index: Int, begin: Double, sha256: String, byteSize: Int) -> [[String: Any]] {
        let schedule = schedules[index], rect = rects[index]
        var playback: [[String: Any]] = []
        var t = schedule[0].from
        while t < schedule.last!.to - 1e-9 {
            if let stretch = schedule.first(where: { $0.from <= t && t < $0.to }), stretch.playing {
                playback.append(["timestamp": begin + t, "stimulusSeconds": stretch.position + t - stretch.from])
            }
            t += 0.25
        }
        let events: [[String: Any]] = index == 1 ? [] : [
            ["kind": "pause", "timestamp": begin + 3, "stimulusSeconds": 2], ["kind": "resume", "timestamp": begin + 4.5, "stimulusSeconds": 2],
            ["kind": "seek", "timestamp": begin + 5.5, "stimulusSeconds": 1, "fromStimulusSeconds": 3],
            ["kind": "stall", "timestamp": begin + 7.5, "stimulusSeconds": 3], ["kind": "stallEnd", "timestamp": begin + 8, "stimulusSeconds": 3],
        ]
        let video: [String: Any] = [
            "index": 0, "label": "box", "kind": "video", "fileName": "box.webm", "byteSize": byteSize, "sha256": sha256,
            "durationSeconds": 6, "frameRate": 30, "widthPixels": 320, "heightPixels": 180,
            "rect": ["x": rect[0], "y": rect[1], "width": rect[2], "height": rect[3]],
            "onset": begin + schedule[0].from, "offset": begin + schedule.last!.to, "ending": "finished", "events": events, "playback": playback,
        ]
        guard index == 0 else { return [video] }
        let image: [String: Any] = [
            "index": 1, "label": "absent", "kind": "image", "fileName": "absent.png", "byteSize": 1000, "sha256": String(repeating: "0f", count: 32),
            "durationSeconds": 0.5, "widthPixels": 100, "heightPixels": 100, "rect": ["x": 200, "y": 200, "width": 100, "height": 100],
            "onset": begin + 9.5, "offset": begin + 10, "ending": "finished", "events": [], "playback": [],
        ]
        return [video, image]
    }

    /// The clip in the stimulus folder (renamed), the two sessions imported, the server running.
    static func preparePresented() throws -> (setup: Setup, begin: Double, sha256: String, clip: String) {
        let workspace = try Workspace()
        let stimuli = workspace.folder.path("stimuli"), aoiFolder = workspace.folder.path("aois")
        try FileManager.default.createDirectory(atPath: stimuli + "/study", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: aoiFolder, withIntermediateDirectories: true)
        let clip = stimuli + "/study/renamed clip.webm"
        let made = try Binary.runProcess("/usr/bin/ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "color=black:s=320x180:r=30:d=6", "-f", "lavfi", "-i", "color=white:s=40x40:r=30:d=6",
            "-filter_complex", "[0][1]overlay=x='20+40*t':y=70", "-c:v", "libvpx-vp9", "-lossless", "1", clip])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        // The hash by coreutils, not by gazerec.
        let sha256 = String(try Binary.runProcess("/usr/bin/sha256sum", [clip]).stdout.prefix(64))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: clip)[.size] as? Int)
        let recording = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Fixtures.iosSession))) as? [String: Any])
        let begin = try #require(recording["beginTime"] as? Double)
        for (index, id) in presentedIDs.enumerated() {
            var document = recording
            document["id"] = id
            document["appID"] = "p\(index + 1)"
            document["gazerec"] = ["presentations": presentations(index, begin: begin, sha256: sha256, byteSize: size)]
            let file = workspace.folder.path("presented-\(index).json")
            try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: file))
            let imported = try workspace.run(["import", file])
            try #require(imported.status == 0, "\(imported.stderr)")
        }
        let server = try ViewServer(["view", "--database", workspace.database, "--stimuli", stimuli, "--aoi-folder", aoiFolder])
        return (Setup(workspace: workspace, stimuli: stimuli, aoiFolder: aoiFolder, server: server), begin, sha256, clip)
    }

    @Test("a session's presentations are listed and drawn at their rectangle; at a scrubbed time after a pause, a seek and a stall the video is where the library's clock puts it; a file absent from the folders is said",
          .enabled(if: presentedReady, presentedReason))
    func presentedSession() throws {
        let (setup, begin, sha256, _) = try Self.preparePresented()
        defer { setup.workspace.folder.remove() }
        let stored = try SessionDatabase(path: setup.workspace.database, access: .readOnly).presentations(id: Self.presentedIDs[0])
        try #require(stored.count == 2)
        let clock = stored[0].clock
        let browser = try WebDriver()
        try browser.open(setup.server.address)
        try browser.run("return window.gazerecView.ready;")
        let listed = try browser.run("return document.getElementById('presented-list').textContent;") as? String ?? ""
        #expect(listed.contains("box.webm") && listed.contains("found as 0/study/renamed clip.webm") && listed.contains("presented in 2 sessions"), "\(listed)")
        #expect(listed.contains("absent.png") && listed.contains("not in the --stimuli folders"), "\(listed)")
        try browser.run("document.getElementById('heatmap').checked = false; return window.gazerecView.openSessions([arguments[0]], '', '', '');",
                        [Self.presentedIDs[0]])
        let rows = try browser.run("return Array.from(document.querySelectorAll('#presentations tbody tr')).map(r => r.textContent);") as? [String] ?? []
        #expect(rows.count == 2, "\(rows)")
        #expect(rows.first?.contains(String(sha256.prefix(12))) == true && rows.first?.contains("seek 3.00→1.00 s") == true, "\(rows)")
        #expect(rows.last?.contains("not in the --stimuli folders") == true, "\(rows)")
        let screen = try browser.run("return window.gazerecView.state.open[0].series.screen;") as? [Double] ?? []
        try #require(screen.count == 2 && screen[0] > 0)
        let scale = 960 / screen[0], rect = Self.rects[0]
        // Playing, paused, after the resume, after the seek back, stalled, after the stall.
        for time in [2.0, 4.0, 5.2, 6.0, 7.8, 9.0] {
            try browser.run("return window.gazerecView.seek(arguments[0]);", [time])
            let shown = try #require(try browser.run("return document.getElementById('video').currentTime;") as? Double)
            let expected = try #require(clock.stimulusSeconds(at: begin + time))
            #expect(abs(shown - expected) <= 1.0 / 30, "at \(time) s: the video shows \(shown) s, the library's clock \(expected) s")
            // The box's centre (stimulus pixels 40 + 40 × position, 90) through the recorded rectangle.
            let x = (rect[0] + (40 + 40 * expected) * rect[2] / 320) * scale, y = (rect[1] + 90 * rect[3] / 180) * scale
            try expectColour(browser, x: x, y: y, (255, 255, 255))
            // Where a clock that ignored the pause and the seek would have put it: black.
            let naive = min(6, time - Self.schedules[0][0].from)
            if abs(naive - expected) > 1 {
                try expectColour(browser, x: (rect[0] + (40 + 40 * naive) * rect[2] / 320) * scale, y: y, (0, 0, 0))
            }
        }
        try browser.run("return window.gazerecView.seek(6);")
        try compare(browser, "view-presented")
        // Outside the rectangle, the screen's grey.
        try expectColour(browser, x: (rect[0] - 20) * scale, y: (rect[1] + 20) * scale, (0x55, 0x55, 0x55))
        // The absent image's rectangle says so on the canvas.
        try browser.run("return window.gazerecView.seek(9.7);")
        #expect(try browser.run("return window.gazerecView.state.shown && window.gazerecView.state.shown.stimulus.missing;") is String)
    }

    @Test("over a presented stimulus, the sessions that presented it play aligned on their own playback seconds; the page's AOI metrics are those of 'stimulus aoi' without --rect",
          .enabled(if: presentedReady, presentedReason))
    func presentedGroup() throws {
        let (setup, _, sha256, clip) = try Self.preparePresented()
        defer { setup.workspace.folder.remove() }
        let areas = #"[{"name": "all", "rect": [0, 0, 320, 180]}, {"name": "box", "keyframes": [{"t": 0, "rect": [15, 65, 50, 50]}, {"t": 6, "rect": [255, 65, 50, 50]}]}]"#
        let saved = setup.aoiFolder + "/box.json"
        try areas.write(toFile: saved, atomically: true, encoding: .utf8)
        let browser = try WebDriver()
        try browser.open(setup.server.address)
        try browser.run("return window.gazerecView.ready;")
        try browser.run("return window.gazerecView.openPresented(arguments[0]).then(() => window.gazerecView.seek(2.5));", [sha256])
        let open = try browser.run("return window.gazerecView.state.open.map(s => s.id);") as? [String]
        #expect(open == Self.presentedIDs)
        let time = try browser.run("return document.getElementById('video').currentTime;") as? Double ?? -1
        #expect(abs(time - 2.5) < 1e-3)
        // The stimulus box names the presented file (not "the screen"); a rectangle or start typed there would not apply.
        let chosen = try browser.run("""
            const s = document.getElementById('stimulus');
            return [s.options[s.selectedIndex].textContent, document.getElementById('rect').disabled ? 'fixed' : 'editable'];
            """) as? [String] ?? []
        #expect(chosen == ["box.webm (presented)", "fixed"], "\(chosen)")
        try compare(browser, "view-presented-group")
        // The first session's gaze at playback second 2.5: the last of its samples the clock puts at or before it.
        let dot = try browser.run("""
            const s = window.gazerecView.state.open[0], c = s.series.columns;
            let i = c['gaze.t'].length - 1; while (i >= 0 && c['gaze.t'][i] > 2.5) i--;
            return [c['gaze.t'][i], s.presentation.clock.segments.length];
            """) as? [Double] ?? []
        #expect(dot.count == 2 && dot[0] <= 2.5 && dot[0] > 2.3 && dot[1] > 10, "\(dot)")
        try browser.run("return window.gazerecView.loadAreas('box.json').then(() => window.gazerecView.metrics());")
        let page = try browser.run("return window.gazerecView.state.lastMetrics.table;") as? [[String: Any]]
        let cli = try setup.workspace.run(["stimulus", "aoi"] + Self.presentedIDs + ["--stimulus", clip, "--aois", saved, "--format", "json"])
        try #require(cli.status == 0, "\(cli.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any]
        let expected = document?["rows"] as? [[String: Any]]
        #expect(page?.count == 4 && expected?.count == 4)
        #expect(page.map { NSArray(array: $0) } == expected.map { NSArray(array: $0) }, "page \(String(describing: page)) cli \(cli.stdout)")
        // Not an empty agreement: the participants looked at the stimulus.
        #expect((expected ?? []).contains { ($0["dwellSeconds"] as? Double ?? 0) > 0.5 }, "\(cli.stdout)")
        // The screen chosen instead and applied: the same sessions as recorded, the presented entry gone.
        try browser.run("""
            const s = document.getElementById('stimulus'); s.value = ''; s.dispatchEvent(new Event('change'));
            document.getElementById('apply-stimulus').click(); return 1;
            """)
        var reopened: [Any] = []
        for _ in 0..<100 {
            reopened = try browser.run("""
                const v = window.gazerecView.state, s = document.getElementById('stimulus');
                return [v.open.length, v.stimulus === null, v.open.every(o => !o.raw), s.querySelectorAll('option[data-presented]').length,
                        document.getElementById('rect').disabled];
                """) as? [Any] ?? []
            if reopened.count == 5, reopened[1] as? Bool == true, reopened[2] as? Bool == true { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(reopened.count == 5 && reopened[0] as? Int == 2 && reopened[1] as? Bool == true && reopened[2] as? Bool == true
                && reopened[3] as? Int == 0 && reopened[4] as? Bool == false, "\(reopened)")
    }

    @Test("the address's token is good once: exchanged for the cookie by a redirect that drops it; used again, refused; the cookie goes on working",
          .enabled(if: ready, reason))
    func oneTimeToken() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let base = setup.server.base, token = setup.server.token
        // A foreign host does not spend it.
        #expect(try Self.curl("\(base)/?token=\(token)", ["Host: attacker.example:\(setup.server.port)"]).status == 403)
        let first = try Self.curl("\(base)/api/sessions?token=\(token)&x=1")
        #expect(first.status == 303)
        let headers = first.headers.lowercased()
        #expect(headers.contains("location: /api/sessions?x=1\r\n"), "\(first.headers)")
        #expect(headers.contains("httponly") && headers.contains("samesite=strict"), "\(first.headers)")
        let cookie = try #require(first.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last?.split(separator: ";").first }
            .map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(try Self.curl("\(base)/api/sessions?token=\(token)").status == 401)
        #expect(try Self.curl("\(base)/api/sessions?token=\(token)", ["Cookie: \(cookie)"]).status == 401)
        #expect(try Self.curl("\(base)/api/sessions", ["Cookie: \(cookie)"]).status == 200)
        #expect(try Self.curl("\(base)/api/sessions", ["Cookie: \(cookie)"]).status == 200)
        // The token is not the cookie's secret.
        #expect(try Self.curl("\(base)/api/sessions", ["Cookie: gazerec_view=\(token)"]).status == 401)
    }

    @Test("the browser's address loses the token once the page is open", .enabled(if: ready, reason))
    func tokenLeavesTheAddressBar() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let browser = try WebDriver()
        try browser.open(setup.server.address)
        try browser.run("return window.gazerecView.ready;")
        let address = try browser.run("return window.location.href;") as? String ?? ""
        #expect(address == setup.server.base + "/", "\(address)")
        #expect(try browser.run("return document.querySelectorAll('#sessions tbody tr').length;") as? Int == 2)
        // The printed address opened again (another tab, a copy from the history): refused.
        try browser.open(setup.server.address)
        let refused = try browser.run("return document.body.textContent;") as? String ?? ""
        #expect(refused.contains("used already"), "\(refused)")
    }
}
