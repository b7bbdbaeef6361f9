import Foundation
import GazeModel
import SessionStore
import Testing
import TestSupport

/// The page over the screen with the two sessions of PresentedPageTests open together (they played
/// the same clip at different times, at different places, one pausing and seeking), and a presented
/// video played at 1× over the screen.
extension ReviewPageTests {
    /// The library's clock of session `index`'s first presentation (the clip).
    static func clipClock(_ database: String, _ index: Int) throws -> PresentationClock {
        let stored = try SessionDatabase(path: database, access: .readOnly).presentations(id: presentedIDs[index])
        return try #require(stored.first).clock
    }

    /// The RGB of pixel (x, y) of canvas `id`.
    func pixel(_ browser: WebDriver, _ id: String, _ x: Double, _ y: Double) throws -> [Int] {
        try browser.run("""
            return Array.from(document.getElementById(arguments[0]).getContext('2d').getImageData(arguments[1], arguments[2], 1, 1).data).slice(0, 3);
            """, [id, Int(x.rounded(.down)), Int(y.rounded(.down))]) as? [Int] ?? []
    }

    func near(_ pixel: [Int], _ colour: (Double, Double, Double), within: Double = 4) -> Bool {
        pixel.count == 3 && abs(Double(pixel[0]) - colour.0) <= within && abs(Double(pixel[1]) - colour.1) <= within
            && abs(Double(pixel[2]) - colour.2) <= within
    }

    @Test("several sessions over the screen: the focused one's stimulus is the picture, the others' outlined at their own rectangles; choosing another in the legend shows its stimulus at its own clock; each one's own presentations on its own track row",
          .enabled(if: presentedReady, presentedReason))
    func sessionsOverTheScreen() throws {
        let (setup, begin, _, _) = try Self.preparePresented()
        defer { setup.workspace.folder.remove() }
        let clocks = try [Self.clipClock(setup.workspace.database, 0), Self.clipClock(setup.workspace.database, 1)]
        let browser = try WebDriver()
        try browser.open(setup.server.address)
        try browser.run("return window.gazerecView.ready;")
        try browser.run("document.getElementById('heatmap').checked = false; return window.gazerecView.openSessions(arguments[0], '', '', '');",
                        [Self.presentedIDs])
        // At 6.5 s the first session had sought back (its clip at 2 s), the second plays on (at 4.5 s).
        try browser.run("return window.gazerecView.seek(6.5);")
        let positions = try clocks.map { try #require($0.stimulusSeconds(at: begin + 6.5)) }
        #expect(abs(positions[0] - positions[1]) > 1, "\(positions)")
        let videoTime = try #require(try browser.run("return document.getElementById('video').currentTime;") as? Double)
        #expect(abs(videoTime - positions[0]) <= 1.0 / 30, "the picture is the first session's: \(videoTime) s, its clock \(positions[0]) s")
        let screen = try browser.run("return window.gazerecView.state.open[0].series.screen;") as? [Double] ?? []
        try #require(screen.count == 2 && screen[0] > 0)
        let scale = 960 / screen[0]
        // The second session's rectangle outlined in its colour: its top edge, right of the first's picture.
        let edge = (Self.rects[1][1] * scale).rounded(.down) + 1
        let outlined = try [760.0, 790, 820].filter { try near(pixel(browser, "stage", $0 * scale, edge), (60, 180, 75), within: 3) }
        #expect(outlined.count >= 2, "the second session's rectangle is not outlined at y \(edge)")
        try expectBox(browser, rect: Self.rects[0], position: positions[0], scale: scale)
        // The second session chosen in the legend: its clip at its own position, at its own rectangle.
        try browser.click("#legend li:nth-child(2)")
        var shown = -1.0
        for _ in 0..<50 {
            shown = try browser.run("return document.getElementById('video').currentTime;") as? Double ?? -1
            if abs(shown - positions[1]) <= 1.0 / 30 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(abs(shown - positions[1]) <= 1.0 / 30, "after choosing the second session the video shows \(shown) s, its clock \(positions[1]) s")
        try browser.run("return window.gazerecView.seek(6.5);")
        try expectBox(browser, rect: Self.rects[1], position: positions[1], scale: scale)
        let focused = try browser.run("const f = document.querySelector('#legend li.focus'); return f ? f.textContent : 'none';") as? String
        #expect(focused == "p2 7E000000")
        // The tracks: a row per session, each with its own presentations in its colour (35 % over white).
        let layout = try browser.run("const v = window.gazerecView; return v.trackLayout ? v.trackLayout() : [];") as? [[String: Any]] ?? []
        let rows = layout.filter { $0["id"] is String }
        #expect(rows.map { $0["id"] as? String } == Self.presentedIDs, "\(layout)")
        let duration = try #require(try browser.run("return window.gazerecView.state.duration;") as? Double)
        let band = [(230.0, 25.0, 75.0), (60.0, 180.0, 75.0)].map { c in (0.35 * c.0 + 0.65 * 255, 0.35 * c.1 + 0.65 * 255, 0.35 * c.2 + 0.65 * 255) }
        // Session 1 showed the clip from 1 s to 9.5 s (then an image to 10 s), session 2 from 2 s to 8 s.
        let shows: [(time: Double, first: Bool, second: Bool)] = [(1.5, true, false), (6.2, true, true), (8.8, true, false), (9.9, true, false), (0.5, false, false)]
        for (row, index) in zip(rows, 0...) {
            let y = Double(row["top"] as? Int ?? 0) + Double(row["height"] as? Int ?? 0) / 2
            for show in shows {
                let colour = try pixel(browser, "tracks", 90 + show.time / duration * 1190, y)
                let expected = (index == 0 ? show.first : show.second) ? band[index] : (255, 255, 255)
                #expect(near(colour, expected), "session \(index + 1)'s row at \(show.time) s: \(colour)")
            }
        }
    }

    /// The clip's white box (stimulus pixels 40 + 40 × position, 90) through rectangle `rect` is white on the stage.
    func expectBox(_ browser: WebDriver, rect: [Double], position: Double, scale: Double,
                   sourceLocation: SourceLocation = #_sourceLocation) throws {
        let x = (rect[0] + (40 + 40 * position) * rect[2] / 320) * scale, y = (rect[1] + 90 * rect[3] / 180) * scale
        try expectColour(browser, x: x, y: y, (255, 255, 255), sourceLocation: sourceLocation)
    }

    @Test("playing a presented video over the screen, the video follows the library's clock through a seek the participant made while it played (the page's drift correction)",
          .enabled(if: presentedReady, presentedReason))
    func playbackFollowsTheClock() throws {
        let (setup, _, _, _) = try Self.preparePresented()
        defer { setup.workspace.folder.remove() }
        let browser = try WebDriver()
        try browser.open(setup.server.address)
        try browser.run("return window.gazerecView.ready;")
        try browser.run("return window.gazerecView.openSessions([arguments[0]], '', '', '').then(() => window.gazerecView.seek(5));",
                        [Self.presentedIDs[0]])
        // Played from 5 s: at 5.5 s the participant sought from 3 s back to 1 s without pausing.
        try browser.run("window.gazerecView.setPlaying(true); return 1;")
        var now = 0.0
        for _ in 0..<300 where now < 5.8 {
            Thread.sleep(forTimeInterval: 0.05)
            now = try browser.run("return window.gazerecView.state.t;") as? Double ?? 0
        }
        try #require(now >= 5.8 && now < 7.5, "the page's clock did not play on: \(now) s")
        var readings: [[Double]] = []
        for _ in 0..<5 {
            let reading = try browser.run("""
                const v = window.gazerecView, video = document.getElementById('video');
                return [v.state.t, video.currentTime, v.stimulusSecondsAt(v.state.open[0].presentations[0].clock, v.state.t), video.paused ? 1 : 0];
                """) as? [Double] ?? []
            readings.append(reading)
            Thread.sleep(forTimeInterval: 0.1)
        }
        try browser.run("window.gazerecView.setPlaying(false); return 1;")
        // Within 0.2 s (the correction's threshold) plus the time between two of the page's frames.
        let following = readings.filter { $0.count == 4 && $0[3] == 0 && abs($0[1] - $0[2]) < 0.5 }
        #expect(following.count >= 4, "page time, video, clock, paused: \(readings)")
    }
}
