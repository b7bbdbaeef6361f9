import CV4L2
import GazeModel
#if canImport(Glibc)
import Glibc
#endif

/// A camera's V4L2 control: exposure, white balance, focus, flips, … (`gazerec devices` lists them).
public struct CameraControl: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case integer, boolean, menu, button, other
    }

    public struct MenuItem: Sendable, Equatable {
        public var value: Int
        public var name: String
    }

    public var id: UInt32
    /// The name a control is set by: the driver's label in lower case, every run of other
    /// characters one `_` ("Exposure, Auto" → `exposure_auto`), as `v4l2-ctl` names them.
    public var name: String
    /// The driver's label.
    public var label: String
    public var kind: Kind
    public var minimum: Int
    public var maximum: Int
    public var step: Int
    public var defaultValue: Int
    /// The current value (nil when it cannot be read, as for buttons).
    public var value: Int?
    /// A menu's items with their values.
    public var menu: [MenuItem]
    /// Inactive: it has no effect now (an exposure time while auto-exposure is on, say).
    public var inactive: Bool
    public var readOnly: Bool

    /// "exposure_auto  menu  1 (Manual Mode)  default 3, 0…3" — one line of `gazerec devices`.
    public var summary: String {
        var text = "\(name)  \(kind.rawValue)"
        if let value {
            text += "  \(value)"
            if let item = menu.first(where: { $0.value == value }) { text += " (\(item.name))" }
        }
        text += "  default \(defaultValue)"
        if kind == .integer { text += ", \(minimum)…\(maximum)" + (step > 1 ? " step \(step)" : "") }
        if kind == .menu { text += ", " + menu.map { "\($0.value) \($0.name)" }.joined(separator: ", ") }
        if inactive { text += "  (inactive)" }
        if readOnly { text += "  (read-only)" }
        return text
    }

    /// `v4l2-ctl`'s name for a driver's label.
    public static func name(forLabel label: String) -> String {
        var name = ""
        for character in label.lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber) {
                name.append(character)
            } else if !name.isEmpty && !name.hasSuffix("_") {
                name.append("_")
            }
        }
        while name.hasSuffix("_") { name.removeLast() }
        return name
    }
}

/// A control to set when a camera opens: `name=value`. The type a session records its applied
/// controls with (`RecordingFacts.cameraControls`), so what was set is stored as it is.
public typealias CameraControlSetting = RecordingFacts.NamedValue

extension CameraControlSetting {
    /// `name=value`; nil when the text is not of that form.
    public init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, !parts[0].isEmpty, let value = Int(parts[1]) else { return nil }
        self.init(name: parts[0], value: value)
    }
}

/// The controls of an open V4L2 device: listing, reading and setting them.
struct CameraControls {
    let path: String
    let descriptor: Int32
    let system: V4L2SystemCalls

    /// Every control the driver lists (VIDIOC_QUERYCTRL with NEXT_CTRL), classes and disabled ones left out.
    func list() -> [CameraControl] {
        var controls: [CameraControl] = []
        var query = v4l2_queryctrl()
        query.id = GZ_V4L2_CTRL_FLAG_NEXT_CTRL
        while controls.count < 512, ioctl(GZ_VIDIOC_QUERYCTRL, &query) == 0 {
            defer { query.id |= GZ_V4L2_CTRL_FLAG_NEXT_CTRL }
            let flags = query.flags
            guard flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0,
                  query.type != V4L2_CTRL_TYPE_CTRL_CLASS.rawValue else { continue }
            let kind: CameraControl.Kind = switch query.type {
            case V4L2_CTRL_TYPE_INTEGER.rawValue: .integer
            case V4L2_CTRL_TYPE_BOOLEAN.rawValue: .boolean
            case V4L2_CTRL_TYPE_MENU.rawValue: .menu
            case V4L2_CTRL_TYPE_BUTTON.rawValue: .button
            default: .other
            }
            let label = V4L2Camera.text(query.name)
            controls.append(CameraControl(
                id: query.id, name: CameraControl.name(forLabel: label), label: label, kind: kind,
                minimum: Int(query.minimum), maximum: Int(query.maximum), step: Int(query.step),
                defaultValue: Int(query.default_value), value: kind == .button ? nil : value(query.id),
                menu: kind == .menu ? menu(query) : [], inactive: flags & UInt32(V4L2_CTRL_FLAG_INACTIVE) != 0,
                readOnly: flags & UInt32(V4L2_CTRL_FLAG_READ_ONLY) != 0))
        }
        return controls
    }

    /// A control's current value, nil when it cannot be read.
    func value(_ id: UInt32) -> Int? {
        var control = v4l2_control(id: id, value: 0)
        return ioctl(GZ_VIDIOC_G_CTRL, &control) == 0 ? Int(control.value) : nil
    }

    private func menu(_ query: v4l2_queryctrl) -> [CameraControl.MenuItem] {
        guard query.minimum <= query.maximum, query.maximum - query.minimum < 64 else { return [] }
        return (query.minimum...query.maximum).compactMap { index in
            var item = v4l2_querymenu()
            item.id = query.id
            item.index = UInt32(index)
            guard ioctl(GZ_VIDIOC_QUERYMENU, &item) == 0 else { return nil }
            return CameraControl.MenuItem(value: Int(index), name: V4L2Camera.text(item.name))
        }
    }

    /// Sets each control in the order given and reads it back: the values the camera then has.
    func apply(_ settings: [CameraControlSetting]) throws -> [CameraControlSetting] {
        guard !settings.isEmpty else { return [] }
        let available = list()
        return try settings.map { setting in
            guard let control = available.first(where: { $0.name == setting.name }) else {
                throw CaptureError.unknownControl(path: path, name: setting.name,
                                                  available: available.filter { !$0.readOnly }.map(\.name))
            }
            let menuValues = control.menu.map(\.value)
            let allowed = control.kind == .menu ? menuValues.contains(setting.value)
                : control.kind == .boolean ? (setting.value == 0 || setting.value == 1)
                : (control.minimum...control.maximum).contains(setting.value)
            guard allowed, !control.readOnly, control.kind != .button else {
                throw CaptureError.badControlValue(path: path, control: control, value: setting.value)
            }
            var value = v4l2_control(id: control.id, value: Int32(setting.value))
            guard ioctl(GZ_VIDIOC_S_CTRL, &value) == 0 else {
                throw CaptureError.deviceError(path: path, operation: "setting \(control.name) to \(setting.value)",
                                               reason: V4L2Camera.reason(system.lastError))
            }
            return CameraControlSetting(name: control.name, value: self.value(control.id) ?? setting.value)
        }
    }

    /// Whether the camera flips its picture left to right (its horizontal-flip control is on).
    var flipsHorizontally: Bool { value(GZ_V4L2_CID_HFLIP) == 1 }

    private func ioctl<T>(_ request: UInt, _ value: inout T) -> Int32 {
        withUnsafeMutablePointer(to: &value) { system.ioctl(descriptor, request, UnsafeMutableRawPointer($0)) }
    }
}

extension CaptureError {
    static func badControlValue(path: String, control: CameraControl, value: Int) -> CaptureError {
        let allowed: String
        switch control.kind {
        case .menu: allowed = control.menu.map { "\($0.value) (\($0.name))" }.joined(separator: ", ")
        case .boolean: allowed = "0 or 1"
        default: allowed = "\(control.minimum)…\(control.maximum)"
        }
        let detail = control.readOnly ? "it is read-only" : control.kind == .button ? "it is a button" : "it takes \(allowed)"
        return .badControl(path: path, detail: "\(control.name) cannot be set to \(value): \(detail)")
    }
}
