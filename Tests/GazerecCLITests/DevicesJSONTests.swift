import Foundation
import JSONStream
import Testing
@testable import GazeCapture
@testable import gazerec

/// `devices --json` without a camera: described cameras as `CameraCatalog` returns them.
@Suite("gazerec devices --json")
struct DevicesJSONTests {
    private func names(_ value: JSONValue?) -> [String] {
        guard case .object(let members)? = value else { return [] }
        return members.map(\.0)
    }

    @Test("members in the documented order; a control's value only when known, its menu only for menus")
    func shape() throws {
        let sizes = [CameraDescription.Size(width: 640, height: 480, framesPerSecond: [30, 15, 7.5]),
                     CameraDescription.Size(width: 320, height: 240, framesPerSecond: [])]
        let controls = [
            CameraControl(id: 1, name: "brightness", label: "Brightness", kind: .integer, minimum: -64, maximum: 64, step: 1,
                          defaultValue: 0, value: -3, menu: [], inactive: false, readOnly: false),
            CameraControl(id: 2, name: "power_line_frequency", label: "Power Line Frequency", kind: .menu, minimum: 0,
                          maximum: 2, step: 1, defaultValue: 1, value: nil,
                          menu: [.init(value: 0, name: "Disabled"), .init(value: 2, name: "60 Hz"), .init(value: 1, name: "50 Hz")],
                          inactive: true, readOnly: true),
        ]
        let camera = CameraDescription(path: "/dev/video0", card: "Cam", driver: "uvcvideo", busInfo: "usb-1",
                                       formats: [.init(code: 1, name: "YUYV", sizes: sizes, supported: true)],
                                       controls: controls)
        let text = try Gazerec.Devices.jsonText([camera])
        #expect(text.hasSuffix("]\n") && text.contains("\n  {\n    \"path\""))
        let cameras = try #require(try JSONValue.parse(Array(text.utf8)).arrayValue)
        #expect(cameras.count == 1)
        #expect(names(cameras[0]) == ["path", "card", "driver", "busInfo", "formats", "controls"])
        let format = cameras[0]["formats"]?.arrayValue?.first
        #expect(names(format) == ["format", "supported", "sizes"])
        #expect(format?["sizes"]?.arrayValue?.first?["framesPerSecond"] == .array([.number(30), .number(15), .number(7.5)]))
        #expect(format?["sizes"]?.arrayValue?.last?["framesPerSecond"] == .array([]))
        let written = try #require(cameras[0]["controls"]?.arrayValue)
        #expect(names(written[0]) == ["name", "label", "kind", "value", "default", "minimum", "maximum", "step",
                                      "inactive", "readOnly"])
        #expect(written[0]["value"] == .number(-3) && written[0]["minimum"] == .number(-64))
        #expect(names(written[1]) == ["name", "label", "kind", "default", "minimum", "maximum", "step", "menu",
                                      "inactive", "readOnly"])
        #expect(written[1]["menu"] == .object([("0", .string("Disabled")), ("2", .string("60 Hz")), ("1", .string("50 Hz"))]))
        #expect(try Gazerec.Devices.jsonText([]) == "[]\n")
    }
}
