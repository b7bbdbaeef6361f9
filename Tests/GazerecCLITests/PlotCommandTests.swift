import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import GazeCapture
import Testing
import TestSupport
import SessionFigures
import SessionStore
import GazeModel
import JSONStream

@Suite("gazerec plot")
struct PlotCommandTests {
    /// Two 0.5 s fixations at (300, 200) and (900, 600) on a 1200×800 screen, 60 Hz.
    static let session: String = {
        var samples: [String] = []
        var t = 1000.0
        for (x, y) in [(300.0, 200.0), (900.0, 600.0)] {
            for _ in 0..<30 {
                samples.append(#"{"timestamp":\#(t),"x":\#(x),"y":\#(y),"orientation":3}"#)
                t += 1.0 / 60
            }
        }
        return #"{"id":"11111111-2222-3333-4444-555555555555","appID":"plot","beginTime":1000,"endTime":1001,"#
            + #""deviceInfo":{"model":"m","screenSize":[1200,800],"systemName":"Linux","systemVersion":"v"},"#
            + #""scanPath":[\#(samples.joined(separator: ","))],"blendShapes":{}}"#
    }()

    /// A database in `folder` holding the session document `json` (imported by the binary): the environment naming it.
    static func imported(_ json: String, into folder: TemporaryFolder) throws -> [String: String] {
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let file = folder.path("s.json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: file))
        let imported = try Binary.run(["import", file], environment: environment)
        try #require(imported.status == 0, "\(imported.stderr)")
        return environment
    }

    final class XMLCheck: NSObject, XMLParserDelegate {
        var elements: [String: Int] = [:]
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements[name, default: 0] += 1
        }
    }

    @Test("the SVG is valid XML and, rendered by rsvg-convert, has its fixation circles where the fixations are",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/rsvg-convert"),
                   "needs rsvg-convert (apt-get install librsvg2-bin)"))
    func rendersFixations() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = try Self.imported(Self.session, into: folder)
        let svg = folder.path("plot.svg")
        let result = try Binary.run(["plot", "11111111-2222-3333-4444-555555555555", "--output", svg, "--fixations"],
                                    environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("2 fixations"))

        // Valid XML with two circles and the legend.
        let parser = XMLParser(contentsOf: URL(fileURLWithPath: svg))!
        let check = XMLCheck()
        parser.delegate = check
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        #expect(check.elements["svg"] == 1)
        #expect(check.elements["circle"] == 2)
        #expect((check.elements["text"] ?? 0) >= 5)

        // Rendered: red-tinted inside the circles (centres at 20 px margin + screen point), white elsewhere.
        let png = folder.path("plot.png")
        let rendered = try Binary.runProcess("/usr/bin/rsvg-convert", [svg, "-o", png])
        try #require(rendered.status == 0, "\(rendered.stderr)")
        let image = try #require(try VideoFileSource(path: png).nextFrame()).image
        #expect(image.width == 1240)
        for (cx, cy) in [(320, 220), (920, 620)] {
            #expect(image[cx - 12, cy - 12] < 200, "inside the circle at (\(cx), \(cy))")
        }
        #expect(image[320, 620] > 250)  // no fixation, no line there
        #expect(image[920, 220] > 250)
    }

    @Test("a program built on the libraries draws the figure plot writes, byte for byte, with one call (SessionPlot)")
    func libraryDrawsTheSameFigure() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = try Self.imported(Self.sessionWithMarkers, into: folder)
        let svg = folder.path("plot.svg")
        let result = try Binary.run(["plot", "11111111", "--output", svg, "--sigma", "1.5", "--between", "A", "B"],
                                    environment: environment)
        #expect(result.status == 0, "\(result.stderr)")

        let database = try SessionDatabase.openForReading(path: folder.path("db.sqlite"))
        let figure = try SessionPlot(sigmaDegrees: 1.5).figure(database, id: "11111111", between: ["A", "B"])

        // The samples from A up to B (at 1000.45 s): most of the first fixation's 30, none of the second's.
        #expect(figure.fixations == 1 && figure.samples > 20 && figure.samples < 30)
        #expect(result.stderr.contains("(\(figure.samples) samples, 1 fixations)"), "\(result.stderr)")
        #expect(figure.svg == (try String(contentsOfFile: svg, encoding: .utf8)))
        #expect(figure.svg.contains("Heatmap: gaze time per square degree"))
    }

    @Test("an output that is neither .svg nor .png, or a σ out of range, is a usage error; an unknown session a runtime error")
    func errors() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        #expect(try Binary.run(["plot", "X", "--output", folder.path("p.txt")], environment: environment).status == 64)
        #expect(try Binary.run(["plot", "X", "--output", folder.path("p.svg"), "--sigma", "0"], environment: environment).status == 64)
        #expect(try Binary.run(["plot", "X", "--output", folder.path("p.svg")], environment: environment).status == 66)
    }

    /// The plot session with markers 'A' at its start and 'B' before the second fixation, in the "gazerec" extension.
    static var sessionWithMarkers: String {
        session.replacingOccurrences(of: #""blendShapes":{}}"#, with: #""blendShapes":{},"gazerec":{"markers":"#
            + #"[{"timestamp":1000,"label":"A"},{"timestamp":1000.45,"label":"B"}]}}"#)
    }

    @Test("--output FILE.png writes a PNG of the figure; --between names the interval in the legend; the heatmap has its scale",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/rsvg-convert"),
                   "needs rsvg-convert (apt-get install librsvg2-bin)"))
    func pngAndInterval() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = try Self.imported(Self.sessionWithMarkers, into: folder)

        let png = folder.path("plot.png"), svg = folder.path("plot.svg")
        for output in [png, svg] {
            let result = try Binary.run(["plot", "11111111", "--output", output, "--between", "A", "B"], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
        }

        let image = try #require(try VideoFileSource(path: png).nextFrame()).image
        #expect(image.width == 1200 + 40 + 110)
        // Only the first fixation (300, 200) lies between A and B: the heatmap is there, not at (900, 600).
        #expect(image[20 + 300, 20 + 200] < 250)
        #expect(image[20 + 900, 20 + 600] > 250)
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(text.contains("Interval: marker &apos;A&apos; to &apos;B&apos;") || text.contains("Interval: marker 'A' to 'B'"))
        #expect(text.contains("gaze s/deg²") && text.contains("σ = 1.00°"))
    }
}
