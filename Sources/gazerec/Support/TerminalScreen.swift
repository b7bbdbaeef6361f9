import Foundation
import GazeModel
import JSONStream
import Synchronization

/// A full-screen terminal session: alternate screen, hidden cursor, raw keyboard input — and
/// everything restored on every way out (normal end, `q`, Ctrl-C, SIGTERM, errors).
///
/// Keys come from stdin, which must be a terminal. The view is drawn on stdout when that is the
/// terminal too, else on stdin's terminal itself, so stdout stays free for data
/// (`id=$(gazerec calibrate)`, `gazerec validate > report.json`).
final class TerminalScreen {
    private var saved = termios()
    private var active = false
    let columns: Int
    let rows: Int
    /// Where the view is drawn.
    private let output: Int32

    /// Whether a full-screen view can run: stdin is a terminal (for keys) and stdout is one or
    /// stdin's terminal can be opened for drawing.
    static var available: Bool { isatty(0) == 1 && (isatty(1) == 1 || ttyname(0) != nil) }

    init() {
        var descriptor: Int32 = 1
        if isatty(1) != 1, let name = ttyname(0) {
            let opened = open(name, O_WRONLY | O_CLOEXEC)
            if opened >= 0 { descriptor = opened }
        }
        output = descriptor
        Self.emergencyOutput.withLock { $0 = descriptor }
        var size = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 {
            columns = Int(size.ws_col)
            rows = Int(size.ws_row)
        } else {
            columns = 80
            rows = 24
        }
    }

    /// Enters the full-screen mode.
    func enter() {
        guard !active else { return }
        tcgetattr(0, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        // Read returns at once with what is there (VMIN 0, VTIME 0).
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSANOW, &raw)
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
        active = true
        Self.emergency.withLock { $0 = saved }
    }

    /// The terminal settings to put back if the process must exit at once (a second Ctrl-C).
    private static let emergency = Mutex<termios?>(nil)
    private static let emergencyOutput = Mutex<Int32>(1)

    /// Restores the screen and keyboard of whichever full-screen view is active, for an immediate exit.
    static func restoreForExit() {
        guard var saved = emergency.withLock({ $0 }) else { return }
        let reset = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"
        let output = emergencyOutput.withLock { $0 }
        _ = reset.withCString { Foundation.write(output, $0, strlen($0)) }
        tcsetattr(0, TCSANOW, &saved)
    }

    /// Leaves it: normal screen, cursor, cooked keyboard (idempotent).
    func leave() {
        guard active else { return }
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(0, TCSANOW, &saved)
        active = false
        Self.emergency.withLock { $0 = nil }
    }

    deinit {
        leave()
        if output != 1 { close(output) }
    }

    /// A key pressed since the last call, if any.
    func key() -> UInt8? {
        var byte: UInt8 = 0
        return Foundation.read(0, &byte, 1) == 1 ? byte : nil
    }

    /// Keys the calibration and playback views understand.
    enum Key: Equatable {
        case space
        case escape
        case quit
        /// S: skip a calibration target that fell short.
        case skip
    }

    /// Keys pressed since the last call. Escape sequences (arrows, function keys, terminal
    /// answers) are skipped whole, so only a lone Esc counts as Esc.
    func keys() -> [Key] {
        var bytes: [UInt8] = []
        while let byte = key() { bytes.append(byte) }
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x20: keys.append(.space)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"): keys.append(.quit)
            case UInt8(ascii: "s"), UInt8(ascii: "S"): keys.append(.skip)
            case 0x1B:
                if index < bytes.count, bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "O") {
                    index += 1
                    while index < bytes.count, !(0x40...0x7E).contains(bytes[index]) { index += 1 }
                    index += 1
                } else {
                    keys.append(.escape)
                }
            default: break
            }
        }
        return keys
    }

    /// The terminal's size in pixels: from the window-size ioctl, else by asking the terminal
    /// (`CSI 14 t`, answered `CSI 4 ; height ; width t`) and waiting up to 300 ms. Nil when it
    /// does not tell. Call in full-screen (raw) mode.
    func pixelSize() -> (width: Int, height: Int, source: String)? {
        var size = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_xpixel > 0, size.ws_ypixel > 0 {
            return (Int(size.ws_xpixel), Int(size.ws_ypixel), "the terminal's window size in pixels")
        }
        write("\u{1B}[14t")
        var answer: [UInt8] = []
        let deadline = DispatchTime.now().uptimeNanoseconds + 300_000_000
        while DispatchTime.now().uptimeNanoseconds < deadline {
            if let byte = key() {
                answer.append(byte)
                if byte == UInt8(ascii: "t") { break }
            } else {
                usleep(5_000)
            }
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard let start = text.range(of: "\u{1B}[4;") else { return nil }
        let fields = text[start.upperBound...].dropLast().split(separator: ";").compactMap { Int($0) }
        guard fields.count == 2, fields[0] > 0, fields[1] > 0 else { return nil }
        return (fields[1], fields[0], "the terminal's answer to a size query (tmux and some terminals make it up)")
    }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(output, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { if errno == EINTR { continue } else { return } }
                offset += written
            }
        }
    }
}

/// Draws gaze on a character grid standing for the screen: a fading trail and numbered fixations.
struct GazeCanvas {
    let columns: Int
    let rows: Int
    let screenWidth: Double
    let screenHeight: Double

    /// The cell of a screen point (nil when off the screen).
    func cell(x: Double, y: Double) -> (Int, Int)? {
        let column = Int(x / screenWidth * Double(columns)), row = Int(y / screenHeight * Double(rows))
        guard (0..<columns).contains(column), (0..<rows).contains(row) else { return nil }
        return (column, row)
    }

    /// One frame: the border, fixations so far (numbered), the trail (oldest faintest), the gaze point.
    func render(trail: [(Double, Double)], fixations: [(Int, Double, Double)], status: String) -> String {
        var grid = [[Character]](repeating: [Character](repeating: " ", count: columns), count: rows)
        var colours = [[Int]](repeating: [Int](repeating: 0, count: columns), count: rows)
        for (number, x, y) in fixations {
            guard let (c, r) = cell(x: x, y: y) else { continue }
            let label = Array(String(number))
            for (offset, character) in label.enumerated() where c + offset < columns {
                grid[r][c + offset] = character
                colours[r][c + offset] = 1
            }
        }
        let marks: [Character] = [".", "+", "*", "o"]
        for (age, point) in trail.reversed().enumerated() {
            guard let (c, r) = cell(x: point.0, y: point.1) else { continue }
            if age == 0 {
                grid[r][c] = "@"
                colours[r][c] = 2
            } else if colours[r][c] == 0 {
                grid[r][c] = marks[max(0, marks.count - 1 - age * marks.count / max(trail.count, 1))]
                colours[r][c] = 3
            }
        }
        var out = "\u{1B}[H"
        for row in 0..<rows {
            var line = ""
            var current = 0
            for column in 0..<columns {
                let colour = colours[row][column]
                if colour != current {
                    line += ["\u{1B}[0m", "\u{1B}[1;31m", "\u{1B}[1;32m", "\u{1B}[36m"][colour]
                    current = colour
                }
                line.append(grid[row][column])
            }
            out += line + "\u{1B}[0m\r\n"
        }
        return out + "\u{1B}[7m" + status.padding(toLength: columns, withPad: " ", startingAt: 0) + "\u{1B}[0m"
    }
}
