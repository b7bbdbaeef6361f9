import Foundation
import GazeAnalysis
import GazeModel
import JSONStream
import SessionStore

/// A session's series as the page reads them: one binary document of little-endian columns.
///
/// Layout: the ASCII magic `GZRV`, a UInt32 (little-endian) length of the header, the header (UTF-8
/// JSON: `begin`, the session's begin in Unix seconds; `screen`, [width, height] in points;
/// `markers`, [{label, t}]; `columns`, [{name, type, count, offset}]), then each column at its byte
/// offset (a multiple of 8 from the document's start): `f64` times in seconds since `begin`, `f32`
/// values with NaN where a value is absent. Columns of one series have one count.
///
/// Series: `gaze.t/x/y` (screen points, x right, y down); `frame.t/face/openL/openR/yaw/pitch/roll`
/// (face 1 or 0; openness 0…1 per eye, the participant's left and right; head pose in degrees as
/// `HeadPoseMeasurement` signs them); `attention.onScreen` (1 where `gaze` lies on the screen, by
/// `isOnScreen`, per gaze sample); `expr.t` with each expression's probability (`expr.happy`, …);
/// `smile.t/v`; `blink.start/end` and `blink.long` (1 for a long closure); `fix.start/end/x/y`
/// (fixations by the session's default detector, as `gazerec fixations` and `plot` find them).
public enum SeriesEncoding {
    struct Column {
        var name: String
        var values: [Double]
        var double: Bool
    }

    /// The document of `session`.
    public static func document(_ session: StoredSession) throws -> [UInt8] {
        let begin = session.header.beginTimeSeconds
        let width = session.header.deviceInfo.screenWidth, height = session.header.deviceInfo.screenHeight
        var columns = gazeColumns(session.gaze, begin: begin, width: width, height: height)
        columns += frameColumns(session.frames, begin: begin)
        columns += expressionColumns(session, begin: begin)
        columns += eventColumns(session, begin: begin)
        let markers = JSONValue.array(session.markers.map {
            .object([("label", .string($0.label)), ("t", .number($0.timestampSeconds - begin))])
        })
        return try pack(columns, header: [("begin", .number(begin)), ("screen", .array([.number(width), .number(height)])),
                                          ("markers", markers)])
    }

    static func gazeColumns(_ gaze: [GazeSample], begin: Double, width: Double, height: Double) -> [Column] {
        [Column(name: "gaze.t", values: gaze.map { $0.timestampSeconds - begin }, double: true),
         Column(name: "gaze.x", values: gaze.map(\.x), double: false),
         Column(name: "gaze.y", values: gaze.map(\.y), double: false),
         Column(name: "attention.onScreen",
                values: gaze.map { isOnScreen(x: $0.x, y: $0.y, width: width, height: height) ? 1 : 0 }, double: false)]
    }

    static func frameColumns(_ frames: [FrameMeasurement], begin: Double) -> [Column] {
        func values(_ value: (FrameMeasurement) -> Double?) -> [Double] { frames.map { value($0) ?? .nan } }
        return [Column(name: "frame.t", values: frames.map { $0.timestampSeconds - begin }, double: true),
                Column(name: "frame.face", values: frames.map { $0.hasFace ? 1 : 0 }, double: false),
                Column(name: "frame.openL", values: values(\.opennessLeft), double: false),
                Column(name: "frame.openR", values: values(\.opennessRight), double: false),
                Column(name: "frame.yaw", values: values { $0.headPose?.yawDegrees }, double: false),
                Column(name: "frame.pitch", values: values { $0.headPose?.pitchDegrees }, double: false),
                Column(name: "frame.roll", values: values { $0.headPose?.rollDegrees }, double: false)]
    }

    static func expressionColumns(_ session: StoredSession, begin: Double) -> [Column] {
        var columns = [Column(name: "expr.t", values: session.expressions.map { $0.timestampSeconds - begin }, double: true)]
        for name in ExpressionName.allCases {
            columns.append(Column(name: "expr." + name.rawValue, values: session.expressions.map { $0.probabilities[name] },
                                  double: false))
        }
        columns.append(Column(name: "smile.t", values: session.smile.map { $0.timestampSeconds - begin }, double: true))
        columns.append(Column(name: "smile.v", values: session.smile.map(\.value), double: false))
        return columns
    }

    static func eventColumns(_ session: StoredSession, begin: Double) -> [Column] {
        let fixations = session.header.fixationScale().defaultDetector.detect(session.gaze).fixations
        return [Column(name: "blink.start", values: session.blinks.map { $0.startSeconds - begin }, double: true),
                Column(name: "blink.end", values: session.blinks.map { $0.endSeconds - begin }, double: true),
                Column(name: "blink.long", values: session.blinks.map { $0.kind == .longClosure ? 1 : 0 }, double: false),
                Column(name: "fix.start", values: fixations.map { $0.startSeconds - begin }, double: true),
                Column(name: "fix.end", values: fixations.map { $0.endSeconds - begin }, double: true),
                Column(name: "fix.x", values: fixations.map(\.x), double: false),
                Column(name: "fix.y", values: fixations.map(\.y), double: false)]
    }

    /// The magic, the header and the columns, each column 8-byte aligned.
    static func pack(_ columns: [Column], header members: [(String, JSONValue)]) throws -> [UInt8] {
        var descriptions: [JSONValue] = [], offsets: [Int] = []
        // Offsets relative to the end of the header; fixed up once the header's length is known.
        var offset = 0
        for column in columns {
            offsets.append(offset)
            offset += (column.values.count * (column.double ? 8 : 4) + 7) / 8 * 8
        }
        func headerBytes(base: Int) throws -> [UInt8] {
            descriptions = zip(columns, offsets).map { column, start in
                .object([("name", .string(column.name)), ("type", .string(column.double ? "f64" : "f32")),
                         ("count", .number(Double(column.values.count))), ("offset", .number(Double(base + start)))])
            }
            return Array(try JSONDocument.text(.object(members + [("columns", .array(descriptions))]), pretty: false).utf8)
        }
        // The base depends on the header's length, which depends on the base's digits: settle it.
        var base = 0, header: [UInt8] = []
        for _ in 0..<4 {
            header = try headerBytes(base: base)
            let next = (8 + header.count + 7) / 8 * 8
            if next == base { break }
            base = next
        }
        header += [UInt8](repeating: 0x20, count: base - 8 - header.count)
        var bytes: [UInt8] = Array("GZRV".utf8)
        bytes.reserveCapacity(base + offset)
        withUnsafeBytes(of: UInt32(header.count).littleEndian) { bytes += $0 }
        bytes += header
        for column in columns { append(column, to: &bytes) }
        return bytes
    }

    static func append(_ column: Column, to bytes: inout [UInt8]) {
        if column.double {
            for value in column.values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        } else {
            for value in column.values { withUnsafeBytes(of: Float(value).bitPattern.littleEndian) { bytes += $0 } }
        }
        while bytes.count % 8 != 0 { bytes.append(0) }
    }
}
