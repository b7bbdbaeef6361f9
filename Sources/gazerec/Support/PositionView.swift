import Foundation
import GazeCapture
import GazeCore
import GazeVision
import Recorder
import Synchronization

/// `gazerec position` on a terminal: the camera's picture as a frame, the face in it with the room
/// it needs for head turns, the last second's figures and one line of advice.
///
/// The guide hands frames over (a lock and a copy); drawing happens on a thread of its own at most
/// ten times a second, so a slow terminal never holds up the frames. q, Esc or Ctrl-C stop it; the
/// terminal is restored however it ends.
enum PositionView {
    private struct State {
        var box: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
        var report: SeatingReport?
        var okSeconds = 0.0
    }

    static func run(_ guide: PositionGuide, source: FrameSource, pipeline: FramePipeline,
                    stop: StopRequest) throws -> PositionGuide.Outcome {
        let screen = TerminalScreen()
        let picture = PositionPicture(columns: screen.columns, rows: screen.rows, frameWidth: source.width,
                                      frameHeight: source.height, thresholds: guide.thresholds, holdSeconds: guide.holdSeconds)
        let state = Mutex(State())
        let finished = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        screen.enter()
        nonisolated(unsafe) let drawing = screen
        let thread = Thread {
            while !finished.load(ordering: .acquiring) {
                for key in drawing.keys() where key == .quit || key == .escape { stop.request() }
                let current = state.withLock { $0 }
                drawing.write(picture.render(box: current.box, report: current.report, okSeconds: current.okSeconds))
                usleep(100_000)
            }
            done.signal()
        }
        thread.name = "gazerec.position"
        thread.start()
        defer {
            finished.store(true, ordering: .releasing)
            done.wait()
            screen.leave()
        }
        return try guide.run(source, pipeline: pipeline, shouldStop: { stop.isRequested }, frame: { features in
            let box = features.face.map { face in
                let bounds = face.landmarks.bounds
                return (bounds.min.x, bounds.min.y, bounds.max.x, bounds.max.y)
            }
            state.withLock { $0.box = box }
        }, report: { report in
            state.withLock { state in
                state.okSeconds = report.ok ? state.okSeconds + report.spanSeconds : 0
                state.report = report
            }
        })
    }
}

/// One screen of the position view, drawn on a character grid.
struct PositionPicture {
    let columns: Int
    let rows: Int
    let frameWidth: Int
    let frameHeight: Int
    let thresholds: SeatingThresholds
    let holdSeconds: Double

    /// The picture's size in cells: as large as fits above four status lines, keeping the
    /// frame's shape (a cell about twice as high as wide).
    var pictureSize: (columns: Int, rows: Int) {
        let availableRows = max(3, rows - 5), availableColumns = max(10, columns - 2)
        let aspect = Double(frameWidth) / Double(max(frameHeight, 1)) * 2
        let byRows = Int(Double(availableRows) * aspect)
        return byRows <= availableColumns ? (max(4, byRows), availableRows)
            : (availableColumns, max(3, Int(Double(availableColumns) / aspect)))
    }

    func render(box: (minX: Double, minY: Double, maxX: Double, maxY: Double)?, report: SeatingReport?,
                okSeconds: Double) -> String {
        let size = pictureSize
        var grid = [[Character]](repeating: [Character](repeating: " ", count: size.columns), count: size.rows)
        func cell(_ x: Double, _ y: Double) -> (Int, Int) {
            (min(size.columns - 1, max(0, Int(x / Double(frameWidth) * Double(size.columns)))),
             min(size.rows - 1, max(0, Int(y / Double(frameHeight) * Double(size.rows)))))
        }
        func outline(_ corners: (Double, Double, Double, Double), _ mark: Character, corner: Character) {
            let (c0, r0) = cell(corners.0, corners.1), (c1, r1) = cell(corners.2, corners.3)
            for c in c0...c1 { grid[r0][c] = mark; grid[r1][c] = mark }
            for r in r0...r1 { grid[r][c0] = mark == "-" ? "|" : mark; grid[r][c1] = mark == "-" ? "|" : mark }
            for (c, r) in [(c0, r0), (c1, r0), (c0, r1), (c1, r1)] { grid[r][c] = corner }
        }
        outline((0, 0, Double(frameWidth - 1), Double(frameHeight - 1)), "-", corner: "+")
        if let box {
            let margin = thresholds.marginFaceWidths * (box.maxX - box.minX)
            outline((box.minX - margin, box.minY - margin, box.maxX + margin, box.maxY + margin), ".", corner: ".")
            outline((box.minX, box.minY, box.maxX, box.maxY), "#", corner: "#")
        }
        var out = "\u{1B}[H\u{1B}[2J"
        for row in grid { out += String(row) + "\r\n" }
        out += statusLines(report, okSeconds: okSeconds).map { String($0.prefix(columns)) }.joined(separator: "\r\n")
        return out
    }

    /// The advice (or ok with the time held), the figures, the keys.
    func statusLines(_ report: SeatingReport?, okSeconds: Double) -> [String] {
        guard let report else { return ["looking for the face…", "", "", "q stops"] }
        let advice = report.ok
            ? "\u{1B}[1;32mok\u{1B}[0m: in range for \(Formatting.fixed(okSeconds, 0)) of \(Formatting.fixed(holdSeconds, 0)) s"
            : "\u{1B}[1;33m\(report.adviceWithOption)\u{1B}[0m"
        func figure(_ name: String, _ value: Double?, _ decimals: Int, _ unit: String = "") -> String {
            "\(name) " + (value.map { Formatting.fixed($0, decimals) + unit } ?? "-")
        }
        let placement = [figure("eyes", report.eyeWidthPixels, 0, " px"), figure("distance", report.distanceMillimetres, 0, " mm"),
                      figure("yaw", report.yawDegrees, 0, "°"), figure("pitch", report.pitchDegrees, 0, "°"),
                      "centred \(report.centred ? "yes" : "no")"].joined(separator: "  ")
        let light = [figure("brightness", report.brightness, 2), figure("contrast", report.contrast, 2),
                     figure("glare", report.glare, 2)].joined(separator: "  ")
        return [advice, placement, light, "# the face   . the room it needs for head turns   q stops"]
    }
}
