import ArgumentParser
import Foundation
import GazeCapture
import GazeModel
import JSONStream
import SessionStore

extension Gazerec {
    /// `gazerec devices`: the V4L2 cameras and what they offer.
    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List V4L2 cameras with their formats, frame sizes, frame rates and controls.",
            discussion: "gazerec reads YUYV and MJPEG; other formats are listed but marked unsupported. Controls are "
                + "listed by the name 'start --camera-control NAME=VALUE' sets them with, with their current value, "
                + "default and range.")

        @Flag(help: "Print a JSON array.")
        var json = false

        @Argument(help: "Devices to describe (default: every /dev/video*).")
        var paths: [String] = []

        func run() throws {
            let targets = paths.isEmpty ? CameraCatalog.devicePaths() : paths
            var descriptions: [CameraDescription] = []
            var failures = 0
            for path in targets {
                do {
                    descriptions.append(try CameraCatalog.describe(path: path))
                } catch CaptureError.notACaptureDevice where paths.isEmpty {
                    continue  // metadata nodes of the same camera
                } catch {
                    failures += 1
                    Console.error(ErrorHints.message(for: error))
                }
            }
            if json {
                try writeJSON(descriptions)
            } else {
                for camera in descriptions {
                    Console.output("\(camera.path)  \(camera.card)  (driver \(camera.driver), \(camera.busInfo))\n")
                    for format in camera.formats {
                        Console.output("  \(format.name)\(format.supported ? "" : " (unsupported)")\n")
                        for size in format.sizes {
                            let rates = size.framesPerSecond.map { Formatting.fixed($0, $0 == $0.rounded() ? 0 : 2) }
                            Console.output("    \(size.width)x\(size.height)  \(rates.isEmpty ? "-" : rates.joined(separator: ", ")) fps\n")
                        }
                    }
                    if !camera.controls.isEmpty { Console.output("  controls\n") }
                    for control in camera.controls { Console.output("    \(control.summary)\n") }
                }
            }
            if descriptions.isEmpty && failures == 0 {
                Console.note("no V4L2 cameras found\(paths.isEmpty ? " (no capture device under /dev/video*)" : ""). "
                             + "Use --input FILE to work from a video.")
            }
            if failures > 0 { throw ExitCode.failure }
        }

        private func writeJSON(_ cameras: [CameraDescription]) throws {
            let sink = MemoryByteSink()
            let writer = JSONWriter(sink: sink, pretty: true)
            try writer.beginArray()
            for camera in cameras {
                try writer.element()
                try writer.beginObject()
                try writer.key("path"); try writer.string(camera.path)
                try writer.key("card"); try writer.string(camera.card)
                try writer.key("driver"); try writer.string(camera.driver)
                try writer.key("busInfo"); try writer.string(camera.busInfo)
                try writer.key("formats")
                try writer.beginArray()
                for format in camera.formats { try Self.write(format, to: writer) }
                try writer.endArray()
                try writer.key("controls")
                try writer.beginArray()
                for control in camera.controls { try Self.write(control, to: writer) }
                try writer.endArray()
                try writer.endObject()
            }
            try writer.endArray()
            try writer.byte(0x0A)
            try writer.flush()
            Console.output(sink.text)
        }

        /// One format with its frame sizes and their rates, as an array element.
        private static func write(_ format: CameraDescription.Format, to writer: JSONWriter) throws {
            try writer.element()
            try writer.beginObject()
            try writer.key("format"); try writer.string(format.name)
            try writer.key("supported"); try writer.bool(format.supported)
            try writer.key("sizes")
            try writer.beginArray()
            for size in format.sizes {
                try writer.element()
                try writer.beginObject()
                try writer.key("width"); try writer.integer(Int64(size.width))
                try writer.key("height"); try writer.integer(Int64(size.height))
                try writer.key("framesPerSecond")
                try writer.beginArray()
                for rate in size.framesPerSecond { try writer.element(); try writer.number(rate) }
                try writer.endArray()
                try writer.endObject()
            }
            try writer.endArray()
            try writer.endObject()
        }

        /// One control with its value, default, range and menu, as an array element.
        private static func write(_ control: CameraControl, to writer: JSONWriter) throws {
            try writer.element()
            try writer.beginObject()
            try writer.key("name"); try writer.string(control.name)
            try writer.key("label"); try writer.string(control.label)
            try writer.key("kind"); try writer.string(control.kind.rawValue)
            if let value = control.value { try writer.key("value"); try writer.integer(Int64(value)) }
            try writer.key("default"); try writer.integer(Int64(control.defaultValue))
            try writer.key("minimum"); try writer.integer(Int64(control.minimum))
            try writer.key("maximum"); try writer.integer(Int64(control.maximum))
            try writer.key("step"); try writer.integer(Int64(control.step))
            if !control.menu.isEmpty {
                try writer.key("menu")
                try writer.beginObject()
                for item in control.menu { try writer.key(String(item.value)); try writer.string(item.name) }
                try writer.endObject()
            }
            try writer.key("inactive"); try writer.bool(control.inactive)
            try writer.key("readOnly"); try writer.bool(control.readOnly)
            try writer.endObject()
        }
    }
}
