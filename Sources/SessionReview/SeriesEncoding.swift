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
    /// One column: its name, whether it holds `f64` (else `f32`) values, how many, and the value at each index.
    struct Column {
        var name: String
        var double: Bool
        var count: Int
        var value: (Int) -> Double

        /// `f64` seconds since `begin` of `times`.
        static func times(_ name: String, _ count: Int, begin: Double, _ time: @escaping (Int) -> Double) -> Column {
            Column(name: name, double: true, count: count) { time($0) - begin }
        }

        /// `f32` values, NaN where absent.
        static func floats(_ name: String, _ values: [Double?]) -> Column {
            Column(name: name, double: false, count: values.count) { values[$0] ?? .nan }
        }

        static func floats(_ name: String, _ count: Int, _ value: @escaping (Int) -> Double) -> Column {
            Column(name: name, double: false, count: count, value: value)
        }

        /// Its bytes in the document, padded to a multiple of 8.
        var paddedSize: Int { (count * (double ? 8 : 4) + 7) / 8 * 8 }
    }

    /// The document of `session`'s columns.
    public static func document(_ session: SessionColumns) throws -> [UInt8] {
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
        [.times("gaze.t", gaze.count, begin: begin) { gaze[$0].timestampSeconds },
         .floats("gaze.x", gaze.count) { gaze[$0].x },
         .floats("gaze.y", gaze.count) { gaze[$0].y },
         .floats("attention.onScreen", gaze.count) { isOnScreen(x: gaze[$0].x, y: gaze[$0].y, width: width, height: height) ? 1 : 0 }]
    }

    static func frameColumns(_ frames: FrameColumns, begin: Double) -> [Column] {
        [.times("frame.t", frames.count, begin: begin) { frames.timestamps[$0] },
         .floats("frame.face", frames.count) { frames.trackingStates[$0] != .missing ? 1 : 0 },
         .floats("frame.openL", frames.opennessLeft), .floats("frame.openR", frames.opennessRight),
         .floats("frame.yaw", frames.yawDegrees), .floats("frame.pitch", frames.pitchDegrees), .floats("frame.roll", frames.rollDegrees)]
    }

    static func expressionColumns(_ session: SessionColumns, begin: Double) -> [Column] {
        let expressions = session.expressions, smile = session.smile
        var columns: [Column] = [.times("expr.t", expressions.count, begin: begin) { expressions.timestamps[$0] }]
        for name in ExpressionName.allCases {
            let values = expressions.values(name)
            columns.append(.floats("expr." + name.rawValue, values.count) { values[$0] })
        }
        columns.append(.times("smile.t", smile.count, begin: begin) { smile[$0].timestampSeconds })
        columns.append(.floats("smile.v", smile.count) { smile[$0].value })
        return columns
    }

    static func eventColumns(_ session: SessionColumns, begin: Double) -> [Column] {
        let fixations = session.header.fixationScale().defaultDetector.detect(session.gaze).fixations, blinks = session.blinks
        return [.times("blink.start", blinks.count, begin: begin) { blinks[$0].startSeconds },
                .times("blink.end", blinks.count, begin: begin) { blinks[$0].endSeconds },
                .floats("blink.long", blinks.count) { blinks[$0].kind == .longClosure ? 1 : 0 },
                .times("fix.start", fixations.count, begin: begin) { fixations[$0].startSeconds },
                .times("fix.end", fixations.count, begin: begin) { fixations[$0].endSeconds },
                .floats("fix.x", fixations.count) { fixations[$0].x },
                .floats("fix.y", fixations.count) { fixations[$0].y }]
    }

    /// The magic, the header and the columns, each column 8-byte aligned: written once into a
    /// buffer of the document's size (no value is copied through an intermediate array).
    static func pack(_ columns: [Column], header members: [(String, JSONValue)]) throws -> [UInt8] {
        var offsets: [Int] = []
        // Offsets relative to the end of the header; fixed up once the header's length is known.
        var offset = 0
        for column in columns {
            offsets.append(offset)
            offset += column.paddedSize
        }
        func headerBytes(base: Int) throws -> [UInt8] {
            let descriptions: [JSONValue] = zip(columns, offsets).map { column, start in
                .object([("name", .string(column.name)), ("type", .string(column.double ? "f64" : "f32")),
                         ("count", .number(Double(column.count))), ("offset", .number(Double(base + start)))])
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
        return [UInt8](unsafeUninitializedCapacity: base + offset) { buffer, initialized in
            let bytes = UnsafeMutableRawBufferPointer(buffer)
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
            bytes.copyBytes(from: Array("GZRV".utf8))
            bytes.storeBytes(of: UInt32(header.count).littleEndian, toByteOffset: 4, as: UInt32.self)
            UnsafeMutableRawBufferPointer(rebasing: bytes[8..<base]).copyBytes(from: header)
            for (column, start) in zip(columns, offsets) {
                write(column, into: UnsafeMutableRawBufferPointer(rebasing: bytes[(base + start)...]))
            }
            initialized = base + offset
        }
    }

    /// `column`'s values, little-endian, at the start of `bytes`.
    static func write(_ column: Column, into bytes: UnsafeMutableRawBufferPointer) {
        // Plain loops over raw stores: this runs for every value of the document.
        var index = 0
        if column.double {
            while index < column.count {
                bytes.storeBytes(of: column.value(index).bitPattern.littleEndian, toByteOffset: index * 8, as: UInt64.self)
                index += 1
            }
        } else {
            while index < column.count {
                bytes.storeBytes(of: Float(column.value(index)).bitPattern.littleEndian, toByteOffset: index * 4, as: UInt32.self)
                index += 1
            }
        }
    }
}
