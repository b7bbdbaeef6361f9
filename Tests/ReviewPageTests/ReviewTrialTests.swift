import Foundation
import Testing
import TestSupport

/// What a new user's trial of `gazerec view` found, each checked in the page (headless Chromium) or
/// on the server as the user met it: over the two sessions of `ReviewPageTests.prepare()`.
extension ReviewPageTests {
    /// Polls `script` in the page until it returns true (at most 15 s); its last answer.
    @discardableResult
    func waitUntil(_ browser: WebDriver, _ script: String, _ args: [Any] = []) throws -> Bool {
        for _ in 0..<150 {
            if try browser.run(script, args) as? Bool == true { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }

    func status(_ browser: WebDriver) throws -> String {
        try browser.run("return document.getElementById('status').textContent;") as? String ?? ""
    }

    /// The text controls set and *Apply* pressed, as a user does; true once the status line no longer says "applying".
    func apply(_ browser: WebDriver, stimulus: String, rect: String, start: String) throws {
        try browser.run("""
            document.getElementById('status').textContent = 'applying';
            document.getElementById('stimulus').value = arguments[0]; document.getElementById('rect').value = arguments[1];
            document.getElementById('start-marker').value = arguments[2]; return 1;
            """, [stimulus, rect, start])
        try browser.click("#apply-stimulus")
        try waitUntil(browser, "return document.getElementById('status').textContent !== 'applying';")
    }

    func openBrowser(_ setup: Setup) throws -> WebDriver {
        let browser = try WebDriver()
        try browser.open(setup.server.address)
        try browser.run("return window.gazerecView.ready;")
        return browser
    }

    @Test("Apply refuses a bad 'shown at' rectangle and an unknown start marker with the library's sentence (the one 'stimulus aoi' gives) and keeps the view",
          .enabled(if: ready, reason))
    func applyRefusesBadPlacement() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let areas = setup.workspace.folder.path("one.json")
        try #"[{"name": "all", "rect": [0, 0, 320, 180]}]"#.write(toFile: areas, atomically: true, encoding: .utf8)
        let browser = try openBrowser(setup)
        try browser.run("return window.gazerecView.openSessions([arguments[0]], '', '', '');", [Self.ids[0]])
        // A trailing comma: not four numbers.
        try apply(browser, stimulus: "0/box.webm", rect: "100,50,640,360,", start: "")
        let refusedText = try status(browser)
        #expect(refusedText.contains("screen rectangle is unusable"), "\(refusedText)")
        #expect(try browser.run("return window.gazerecView.state.stimulus === null;") as? Bool == true)
        for text in ["abc", "0,0,0,0"] {
            try apply(browser, stimulus: "0/box.webm", rect: text, start: "")
            let said = try status(browser)
            #expect(said.contains("screen rectangle is unusable"), "\(text): \(said)")
            #expect(try browser.run("return window.gazerecView.state.stimulus === null;") as? Bool == true, "\(text)")
        }
        // Another aspect: the CLI's sentence.
        let aspect = try setup.workspace.run(["stimulus", "aoi", Self.ids[0], "--stimulus", setup.stimuli + "/box.webm",
                                              "--rect", "0,0,100,100", "--aois", areas])
        #expect(aspect.status == 64)
        let aspectLine = try #require(aspect.stderr.split(separator: "\n").first { $0.contains("aspect") })
        try apply(browser, stimulus: "0/box.webm", rect: "0,0,100,100", start: "")
        let refusedAspect = try status(browser)
        #expect(!refusedAspect.isEmpty && aspectLine.contains(refusedAspect), "page: \(refusedAspect) cli: \(aspectLine)")
        #expect(try browser.run("return window.gazerecView.state.stimulus === null;") as? Bool == true)
        // A marker the session does not have: the CLI's warning, here a refusal.
        let marker = try setup.workspace.run(["stimulus", "aoi", Self.ids[0], "--stimulus", setup.stimuli + "/box.webm",
                                              "--rect", "100,50,640,360", "--start", "nosuch", "--aois", areas])
        let markerLine = try #require(marker.stderr.split(separator: "\n").first { $0.contains("no marker") })
        try apply(browser, stimulus: "0/box.webm", rect: "100,50,640,360", start: "nosuch")
        let refusedMarker = try status(browser)
        #expect(!refusedMarker.isEmpty && markerLine.contains(refusedMarker), "page: \(refusedMarker) cli: \(markerLine)")
        #expect(try browser.run("return window.gazerecView.state.stimulus === null;") as? Bool == true)
        // A good one is applied.
        try apply(browser, stimulus: "0/box.webm", rect: "100,50,640,360", start: "video")
        #expect(try browser.run("return window.gazerecView.state.stimulus !== null && window.gazerecView.state.rect.join();") as? String
                == "100,50,640,360")
    }

    @Test("the figure links follow the legend: they name the first shown participant", .enabled(if: ready, reason))
    func figureLinksFollowTheLegend() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let browser = try openBrowser(setup)
        try browser.run("return window.gazerecView.openSessions(arguments[0], '', '', '');", [Self.ids])
        #expect((try browser.run("return document.getElementById('figure-svg').href;") as? String ?? "").contains(Self.ids[0]))
        try browser.click("#legend li:first-child input")
        for link in ["figure-svg", "figure-png"] {
            let href = try browser.run("return document.getElementById(arguments[0]).href;", [link]) as? String ?? ""
            #expect(href.contains(Self.ids[1]), "\(link): \(href)")
        }
        // The tracks say whose they are.
        let caption = try browser.run("return document.getElementById('tracks-of').textContent;") as? String ?? ""
        #expect(caption.contains(String(Self.ids[1].prefix(8))), "\(caption)")
    }

    @Test("the metrics table goes when it no longer applies (another view, a failed request) and the status line with it",
          .enabled(if: ready, reason))
    func staleMetricsCleared() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let browser = try openBrowser(setup)
        let metricsShown = "return document.querySelectorAll('#metrics tr').length > 0;"
        try browser.run("""
            return window.gazerecView.openSessions(arguments[0], '0/box.webm', '100,50,640,360', 'video').then(() => {
              window.gazerecView.state.areas.push({ name: 'all', keyframed: false, keyframes: [{ t: 0, shape: { kind: 'rect', v: [0, 0, 320, 180] } }] });
              return window.gazerecView.metrics(); });
            """, [Self.ids])
        #expect(try browser.run(metricsShown) as? Bool == true)
        // The command's warnings come with the table.
        let areas = setup.workspace.folder.path("all.json")
        try #"[{"name": "all", "rect": [0, 0, 320, 180]}]"#.write(toFile: areas, atomically: true, encoding: .utf8)
        let cli = try setup.workspace.run(["stimulus", "aoi"] + Self.ids + ["--stimulus", setup.stimuli + "/box.webm", "--rect", "100,50,640,360",
                                                                             "--start", "video", "--aois", areas, "--format", "json"])
        let document = try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any]
        let warnings = document?["warnings"] as? [String] ?? []
        #expect(!warnings.isEmpty, "\(cli.stdout)")
        #expect(try browser.run("return window.gazerecView.state.lastMetrics.warnings;") as? [String] == warnings)
        let shown = try browser.run("return document.getElementById('metrics').textContent;") as? String ?? ""
        #expect(warnings.allSatisfy { shown.contains("warning: " + $0) }, "\(shown)")
        // The table stays inside the side panel (it scrolls there); the page does not scroll sideways.
        let widths = try browser.run("""
            const aside = document.querySelector('aside');
            return [aside.scrollWidth, aside.clientWidth, document.documentElement.scrollWidth, document.documentElement.clientWidth];
            """) as? [Int] ?? []
        #expect(widths.count == 4 && widths[0] <= widths[1] && widths[2] <= widths[3], "\(widths)")
        // Another view: one session over the screen.
        try browser.run("return window.gazerecView.openSessions([arguments[0]], '', '', '');", [Self.ids[1]])
        #expect(try browser.run(metricsShown) as? Bool == false)
        #expect(try browser.run("return window.gazerecView.state.lastMetrics;") == nil || (try browser.run("return window.gazerecView.state.lastMetrics === null;") as? Bool == true))
        // A failed request leaves no table of before.
        try apply(browser, stimulus: "0/box.webm", rect: "100,50,640,360", start: "video")
        try browser.run("return window.gazerecView.metrics();")
        #expect(try browser.run(metricsShown) as? Bool == true)
        try browser.run("window.gazerecView.state.areas[0].name = ''; document.getElementById('status').textContent = 'asking'; return 1;")
        try browser.click("#aoi-metrics")
        try waitUntil(browser, "return document.getElementById('status').textContent !== 'asking';")
        #expect(try browser.run(metricsShown) as? Bool == false)
        let failed = try status(browser)
        #expect(!failed.isEmpty)
        // The status line's refusal goes once something else is done.
        try apply(browser, stimulus: "", rect: "", start: "")
        #expect(try status(browser) != failed)
    }

    @Test("AOI file names are decoded once: 'My Areas.json' is saved, listed and loaded under that name and read by 'stimulus aoi'; only a plain name ending .json is taken, saying so",
          .enabled(if: ready, reason))
    func aoiFileNames() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let base = setup.server.base
        let exchanged = try Self.curl("\(base)/api/sessions?token=\(setup.server.token)")
        let cookie = "Cookie: " + (exchanged.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last?.split(separator: ";").first }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "")
        let document = setup.workspace.folder.path("doc.json")
        try #"[{"name": "all", "rect": [0, 0, 320, 180]}]"#.write(toFile: document, atomically: true, encoding: .utf8)
        func put(_ encoded: String) throws -> (status: Int, body: String) {
            let result = try Binary.runProcess("/usr/bin/curl", ["-s", "-X", "PUT", "-H", cookie, "-H", "Content-Type: application/json",
                                                                 "--data-binary", "@" + document, "-w", "\n%{http_code}", "\(base)/api/aoi-files/\(encoded)"])
            return (Int(result.stdout.suffix(3)) ?? 0, String(result.stdout.dropLast(4)))
        }
        #expect(try put("My%20Areas.json").status == 200)
        #expect(try put("caf%C3%A9.json").status == 200)
        let names = try FileManager.default.contentsOfDirectory(atPath: setup.aoiFolder).sorted()
        #expect(names == ["My Areas.json", "café.json"], "\(names)")
        let listed = try Binary.runProcess("/usr/bin/curl", ["-s", "-H", cookie, "\(base)/api/aoi-files"]).stdout
        #expect(listed.contains("\"My Areas.json\""), "\(listed)")
        #expect(try Self.curl("\(base)/api/aoi-files/My%20Areas.json", [cookie]).status == 200)
        for (encoded, shown, code) in [("sub%2Fx.json", "sub/x.json", 403), ("areas", "areas", 400)] {
            let refused = try put(encoded)
            #expect(refused.status == code, "\(encoded): \(refused)")
            #expect(refused.body.contains("\\\"\(shown)\\\"") || refused.body.contains("\(shown)"), "\(refused.body)")
            #expect(refused.body.contains("end in .json"), "\(refused.body)")
        }
        let cli = try setup.workspace.run(["stimulus", "aoi", Self.ids[0], "--stimulus", setup.stimuli + "/box.webm", "--rect", "100,50,640,360",
                                           "--aois", setup.aoiFolder + "/My Areas.json"])
        #expect(cli.status == 0, "\(cli.stderr)")
    }

    @Test("keyframed AOIs: a new name or kind starts a new area; Finish un-chooses it; one keyframe can be deleted",
          .enabled(if: ready, reason))
    func keyframedEditing() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let browser = try openBrowser(setup)
        try browser.run("return window.gazerecView.openSessions(arguments[0], '0/box.webm', '100,50,640,360', 'video').then(() => window.gazerecView.seek(0));",
                        [Self.ids])
        try browser.click("button[data-tool=rect]")
        try browser.run("document.getElementById('aoi-keyframed').checked = true; document.getElementById('aoi-name').value = 'mover'; return 1;")
        try browser.drag(on: "#stage", from: (60, 200), to: (200, 330))
        try browser.run("return window.gazerecView.seek(2);")
        try browser.drag(on: "#stage", from: (300, 200), to: (440, 330))
        func areas() throws -> [String] {
            try browser.run("return window.gazerecView.state.areas.map(a => a.name + ':' + a.keyframes.map(k => k.shape.kind + '@' + k.t).join(','));")
                as? [String] ?? []
        }
        #expect(try areas() == ["mover:rect@0,rect@2"])
        // Another kind: a new area, not a keyframe of "mover".
        try browser.click("button[data-tool=ellipse]")
        try browser.run("document.getElementById('aoi-name').value = 'round'; return 1;")
        try browser.drag(on: "#stage", from: (500, 100), to: (600, 200))
        #expect(try areas() == ["mover:rect@0,rect@2", "round:ellipse@2"])
        // Another name, same kind: a new area too.
        try browser.click("button[data-tool=rect]")
        try browser.run("document.getElementById('aoi-name').value = 'second'; return 1;")
        try browser.drag(on: "#stage", from: (500, 300), to: (600, 400))
        #expect(try areas() == ["mover:rect@0,rect@2", "round:ellipse@2", "second:rect@2"])
        // Finish: nothing chosen; the next drawing under a fresh name is a new area.
        try browser.click("#aoi-finish")
        #expect(try browser.run("return window.gazerecView.state.chosen;") as? Int == -1)
        // Choosing "mover" again and drawing at 1 s adds its keyframe there; deleting it removes that one only.
        try browser.click("#aoi-list li:first-child")
        try browser.run("return window.gazerecView.seek(1);")
        try browser.drag(on: "#stage", from: (180, 200), to: (320, 330))
        #expect(try areas().first == "mover:rect@0,rect@1,rect@2")
        try browser.click("#aoi-delete-keyframe")
        #expect(try areas() == ["mover:rect@0,rect@2", "round:ellipse@2", "second:rect@2"])
    }

    @Test("AOIs belong to their stimulus: another stimulus does not show them, the first brings them back",
          .enabled(if: ready, reason))
    func areasBelongToTheirStimulus() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=gray:s=160x90:d=1", "-frames:v", "1",
                                                             setup.stimuli + "/still.png"])
        try #require(made.status == 0, "\(made.stderr)")
        let browser = try openBrowser(setup)
        try browser.run("""
            return window.gazerecView.openSessions(arguments[0], '0/box.webm', '100,50,640,360', 'video').then(() => {
              window.gazerecView.state.areas.push({ name: 'box area', keyframed: false, keyframes: [{ t: 0, shape: { kind: 'rect', v: [0, 0, 320, 180] } }] });
              return 1; });
            """, [Self.ids])
        try browser.run("const o = new Option('0/still.png', '0/still.png'); document.getElementById('stimulus').append(o); return 1;")
        try apply(browser, stimulus: "0/still.png", rect: "100,50,640,360", start: "video")
        #expect(try browser.run("return window.gazerecView.state.areas.length;") as? Int == 0)
        try apply(browser, stimulus: "", rect: "", start: "")
        #expect(try browser.run("return window.gazerecView.state.areas.length;") as? Int == 0)
        try apply(browser, stimulus: "0/box.webm", rect: "100,50,640,360", start: "video")
        #expect(try browser.run("return window.gazerecView.state.areas.map(a => a.name);") as? [String] == ["box area"])
    }

    @Test("keys work whatever control has focus but a text field: ← → step one frame of the stimulus shown, space plays",
          .enabled(if: ready, reason))
    func keysWhateverHasFocus() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let browser = try openBrowser(setup)
        try browser.run("return window.gazerecView.openSessions(arguments[0], '0/box.webm', '100,50,640,360', 'video').then(() => window.gazerecView.seek(1));",
                        [Self.ids])
        func time() throws -> Double { try browser.run("return window.gazerecView.state.t;") as? Double ?? -1 }
        for control in ["scrub", "speed", "heatmap", "play"] {
            try browser.run("return window.gazerecView.seek(1);")
            try browser.run("document.getElementById(arguments[0]).focus(); return 1;", [control])
            try browser.keys(["\u{E014}"])
            try waitUntil(browser, "return window.gazerecView.state.t !== 1;")
            let now = try time()
            #expect(abs(now - (1 + 1.0 / 30)) < 1e-6, "\(control): \(now)")
            #expect(try browser.run("return document.getElementById('speed').value;") as? String == "1", "\(control)")
        }
        try browser.run("document.getElementById('scrub').focus(); return 1;")
        try browser.keys([" "])
        #expect(try waitUntil(browser, "return window.gazerecView.state.playing === true;"))
        try browser.keys([" "])
        #expect(try waitUntil(browser, "return window.gazerecView.state.playing === false;"))
        // In a text field the key is the field's.
        try browser.run("return window.gazerecView.seek(1);")
        try browser.run("document.getElementById('rect').focus(); return 1;")
        try browser.keys(["\u{E014}"])
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try time() == 1)
    }

    @Test("opening a session by double-click shows its failure on the status line", .enabled(if: ready, reason))
    func doubleClickFailureShown() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let browser = try openBrowser(setup)
        try browser.run("window.fetch = () => Promise.reject(new Error('the network is down')); return 1;")
        try browser.run("""
            document.querySelector('#sessions tbody tr').dispatchEvent(new MouseEvent('dblclick', { bubbles: true })); return 1;
            """)
        let shown = try waitUntil(browser, "return document.getElementById('status').textContent.includes('the network is down');")
        let said = try status(browser)
        #expect(shown, "\(said)")
    }

    @Test("two servers in one browser: opening the second keeps the first's page working", .enabled(if: ready, reason))
    func twoServersOneBrowser() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let second = try ViewServer(["view", "--database", setup.workspace.database])
        let browser = try openBrowser(setup)
        try browser.open(second.address)
        try browser.run("return window.gazerecView.ready;")
        try browser.open(setup.server.base + "/")
        try browser.run("return window.gazerecView.ready;")
        let status = try browser.run("return fetch('/api/sessions').then(r => r.status);") as? Int
        #expect(status == 200)
        #expect(try browser.run("return document.querySelectorAll('#sessions tbody tr').length;") as? Int == 2)
    }

    @Test("view's own errors name the option and say what to do", .enabled(if: ready, reason))
    func viewErrors() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let file = setup.workspace.folder.path("plain.txt")
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        for (option, path) in [("--aoi-folder", file), ("--aoi-folder", file + "-missing"), ("--stimuli", file)] {
            let result = try setup.workspace.run(["view", "--database", setup.workspace.database, option, path])
            #expect(result.status == 66, "\(option) \(path): \(result.stderr)")
            #expect(result.stderr.contains(option) && result.stderr.contains(path), "\(result.stderr)")
        }
        let folder = try setup.workspace.run(["view", "--database", setup.stimuli])
        #expect(folder.status == 66 && folder.stderr.contains("--database") && !folder.stderr.contains("disk I/O"), "\(folder.stderr)")
        let taken = try setup.workspace.run(["view", "--database", setup.workspace.database, "--port", setup.server.port])
        #expect(taken.status != 0)
        #expect(taken.stderr.contains("in use") && taken.stderr.contains("--port") && !taken.stderr.contains("bind("), "\(taken.stderr)")
        let help = try setup.workspace.run(["view", "--help"])
        let helpText = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(helpText.contains("0: a free one"), "\(help.stdout)")
    }

    @Test("in a single presented session's view, AOIs are drawn in the presented file's pixels at its recorded rectangle and Metrics gives 'stimulus aoi' without --rect",
          .enabled(if: presentedReady, presentedReason))
    func areasOverAPresentedSession() throws {
        let (setup, _, _, clip) = try Self.preparePresented()
        defer { setup.workspace.folder.remove() }
        let saved = setup.aoiFolder + "/all.json"
        try #"[{"name": "all", "rect": [0, 0, 320, 180]}]"#.write(toFile: saved, atomically: true, encoding: .utf8)
        let browser = try openBrowser(setup)
        try browser.run("""
            document.getElementById('heatmap').checked = false;
            return window.gazerecView.openSessions([arguments[0]], '', '', '').then(() => window.gazerecView.seek(2));
            """, [Self.presentedIDs[0]])
        // → steps one frame of the presented 30 fps clip on the screen at the cursor.
        try browser.run("document.body.focus(); return 1;")
        try browser.keys(["\u{E014}"])
        try waitUntil(browser, "return window.gazerecView.state.t !== 2;")
        let stepped = try browser.run("return window.gazerecView.state.t;") as? Double ?? -1
        #expect(abs(stepped - (2 + 1.0 / 30)) < 1e-6, "\(stepped)")
        try browser.run("return window.gazerecView.seek(2);")
        try browser.run("return window.gazerecView.loadAreas('all.json');")
        let screen = try browser.run("return window.gazerecView.state.open[0].series.screen;") as? [Double] ?? []
        try #require(screen.count == 2 && screen[0] > 0)
        let scale = 960 / screen[0], rect = Self.rects[0]
        // The area's outline (cyan) is the presented rectangle's top and left edges.
        try expectColour(browser, x: (rect[0] + rect[2] / 2) * scale, y: rect[1] * scale, (0, 255, 255))
        try expectColour(browser, x: rect[0] * scale, y: (rect[1] + rect[3] / 2) * scale, (0, 255, 255))
        try browser.run("return window.gazerecView.metrics();")
        let page = try browser.run("return window.gazerecView.state.lastMetrics.table;") as? [[String: Any]]
        let cli = try setup.workspace.run(["stimulus", "aoi", Self.presentedIDs[0], "--stimulus", clip, "--aois", saved, "--format", "json"])
        try #require(cli.status == 0, "\(cli.stderr)")
        let expected = (try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any])?["rows"] as? [[String: Any]]
        #expect(page?.isEmpty == false && page.map { NSArray(array: $0) } == expected.map { NSArray(array: $0) },
                "page \(String(describing: page)) cli \(cli.stdout)")
    }

    @Test("the sessions filter finds the date as 'gazerec list' writes it and says when nothing matches", .enabled(if: ready, reason))
    func sessionsFilter() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let browser = try openBrowser(setup)
        func filter(_ text: String) throws -> [String] {
            try browser.run("""
                const f = document.getElementById('filter'); f.value = arguments[0]; f.dispatchEvent(new Event('input'));
                return Array.from(document.querySelectorAll('#sessions tbody tr')).map(r => r.textContent);
                """, [text]) as? [String] ?? []
        }
        let listed = try setup.workspace.run(["list"]).stdout
        let date = String(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Self.begin)).prefix(16))
        #expect(listed.contains(date), "\(date) not in: \(listed)")
        #expect(try filter(date).count == 2)
        let none = try filter("no such session")
        #expect(none.count == 1 && none.first?.contains("No session matches") == true, "\(none)")
        #expect(try status(browser) == "0 of 2 sessions")
    }

    @Test("gaze off the picture is shown at its edge; an AOI outline shows over a stimulus of its own colour", .enabled(if: ready, reason))
    func offPictureAndOutlines() throws {
        let setup = try Self.prepare()
        defer { setup.workspace.folder.remove() }
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=0x00ffff:s=160x90:d=1", "-frames:v", "1",
                                                             setup.stimuli + "/cyan.png"])
        try #require(made.status == 0, "\(made.stderr)")
        let browser = try openBrowser(setup)
        // From marker "half" the box's video starts 3 s later: at its 3.5 s the first participant looks at (5, 5), off the picture.
        try browser.run("""
            document.getElementById('heatmap').checked = false;
            return window.gazerecView.openSessions([arguments[0]], '0/box.webm', '100,50,640,360', 'half').then(() => window.gazerecView.seek(3.5));
            """, [Self.ids[0]])
        try expectColour(browser, x: 7, y: 7, Self.firstColour)
        try browser.run("const o = new Option('0/cyan.png', '0/cyan.png'); document.getElementById('stimulus').append(o); return 1;")
        try apply(browser, stimulus: "0/cyan.png", rect: "100,50,640,360", start: "video")
        try browser.run("""
            window.gazerecView.state.areas.push({ name: 'a', keyframed: false, keyframes: [{ t: 0, shape: { kind: 'rect', v: [40, 20, 80, 50] } }] });
            return window.gazerecView.seek(0.5);
            """)
        // Canvas pixels per stimulus pixel: 960 / 160 = 6; the outline's left edge at x = 240, drawn 2 px wide (239–241): pixel 238 is beside it.
        let pixel = try browser.run("""
            return Array.from(document.getElementById('stage').getContext('2d').getImageData(238, 300, 1, 1).data);
            """) as? [Int] ?? []
        #expect(pixel.count == 4 && pixel[0] < 80 && pixel[1] < 80 && pixel[2] < 80, "beside the outline: \(pixel)")
    }
}
