import ArgumentParser
import Foundation
import GazeModel
import JSONStream

/// Live stream formats.
enum StreamFormat: String, CaseIterable, ExpressibleByArgument {
    case ndjson
}

/// Writes samples to stdout as NDJSON, one line each, flushed per line; stops quietly on a closed pipe.
final class LiveStream {
    private let sink = FileByteSink.standardOutput()
    private var open = true

    init() { signal(SIGPIPE, SIG_IGN) }

    func write(_ frame: FrameMeasurement, _ blendShapes: [(String, Double)], _ gaze: GazeSample?,
               expression: ExpressionSample? = nil) {
        guard open else { return }
        let memory = MemoryByteSink()
        let json = JSONWriter(sink: memory)
        do {
            try json.beginObject()
            try json.key("type"); try json.string("sample")
            try json.key("timestamp"); try json.number(frame.timestampSeconds)
            if let gaze { try json.key("x"); try json.number(gaze.x); try json.key("y"); try json.number(gaze.y) }
            try json.key("trackingState"); try json.string(frame.trackingState.rawValue)
            try json.key("confidence"); try json.number(frame.confidence)
            for (name, value) in zip(FrameMeasurement.optionalValueNames, frame.optionalValues) {
                if let value { try json.key(name); try json.number(value) }
            }
            if !blendShapes.isEmpty {
                try json.key("blendShapes")
                try json.beginObject()
                for (name, value) in blendShapes { try json.key(name); try json.number(value) }
                try json.endObject()
            }
            if let expression {
                try json.key("expressions")
                try json.beginObject()
                for (name, value) in zip(ExpressionSample.valueNames, expression.probabilities.values) {
                    try json.key(name); try json.number(value)
                }
                try json.endObject()
            }
            try json.endObject()
            try json.byte(0x0A)
            try json.flush()
            try memory.bytes.withUnsafeBytes { try sink.write($0) }
        } catch {
            // The reader went away (EPIPE): stop streaming, keep recording.
            open = false
            Console.note("the stream's reader closed the pipe; recording continues")
        }
    }

    /// The last line: the session id.
    func finish(sessionID: String) {
        guard open else { return }
        let line = #"{"type":"session","id":"\#(sessionID)"}"# + "\n"
        try? Array(line.utf8).withUnsafeBytes { try sink.write($0) }
    }
}
