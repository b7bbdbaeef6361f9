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
            var firstFailure = ExitStatus.failure
            for path in targets {
                do {
                    descriptions.append(try CameraCatalog.describe(path: path))
                } catch CaptureError.notACaptureDevice where paths.isEmpty {
                    continue  // metadata nodes of the same camera
                } catch {
                    if failures == 0 { firstFailure = ExitStatus.of(error) }
                    failures += 1
                    Console.error(ErrorHints.message(for: error))
                }
            }
            if json {
                Console.output(try Self.jsonText(descriptions))
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
            // Each device failed is said; the status is the first one's (a device not there: 66).
            if failures > 0 { throw ExitCode(firstFailure.rawValue) }
        }

        /// The cameras as `devices --json` prints them: a pretty JSON array and a newline.
        static func jsonText(_ cameras: [CameraDescription]) throws -> String {
            try JSONDocument.text(encoding: cameras.map(CameraDocument.init))
        }
    }
}

/// A camera as `devices --json` writes it: members in declaration order, `value` only when the
/// control has one, `menu` (item value → name, in the driver's order) only for menu controls.
private struct CameraDocument: Encodable {
    var path: String
    var card: String
    var driver: String
    var busInfo: String
    var formats: [Format]
    var controls: [Control]

    struct Format: Encodable {
        var format: String
        var supported: Bool
        var sizes: [Size]
    }

    struct Size: Encodable {
        var width: Int
        var height: Int
        var framesPerSecond: [Double]
    }

    struct Control: Encodable {
        var name: String
        var label: String
        var kind: String
        var value: Int?
        var `default`: Int
        var minimum: Int
        var maximum: Int
        var step: Int
        var menu: Menu?
        var inactive: Bool
        var readOnly: Bool
    }

    struct Menu: Encodable {
        var items: [CameraControl.MenuItem]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: JSONKey.self)
            for item in items { try container.encode(item.name, forKey: JSONKey(String(item.value))) }
        }
    }

    init(_ camera: CameraDescription) {
        (path, card, driver, busInfo) = (camera.path, camera.card, camera.driver, camera.busInfo)
        formats = camera.formats.map { format in
            Format(format: format.name, supported: format.supported, sizes: format.sizes.map {
                Size(width: $0.width, height: $0.height, framesPerSecond: $0.framesPerSecond)
            })
        }
        controls = camera.controls.map { control in
            Control(name: control.name, label: control.label, kind: control.kind.rawValue, value: control.value,
                    default: control.defaultValue, minimum: control.minimum, maximum: control.maximum, step: control.step,
                    menu: control.menu.isEmpty ? nil : Menu(items: control.menu), inactive: control.inactive,
                    readOnly: control.readOnly)
        }
    }
}
