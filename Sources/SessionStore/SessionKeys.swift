import JSONStream

/// How property keys are spelled in a session document.
public enum KeyStyle: Sendable, Equatable {
    /// The iOS package's default: `appID`, `scanPath`, `blendShapeLocation`.
    case camelCase
    /// Foundation's `convertToSnakeCase`: `app_id`, `scan_path`, `blend_shape_location`.
    case snakeCase
}

/// The property keys of the session format, each with its camelCase and snake_case spelling.
///
/// Dictionary keys of `blendShapes` (blend-shape names) are data and never converted, and neither
/// are the keys inside the `"gazerec"` extension object.
enum SessionKey: Int, CaseIterable {
    // Session
    case id, appID, beginTime, endTime, scanPath, blendShapes, deviceInfo, gazerec
    // Samples
    case timestamp, x, y, orientation, trackingState, blendShapeLocation, value
    // DeviceInfo
    case model, screenSize, systemName, systemVersion

    var camel: StaticString {
        switch self {
        case .id: "id"
        case .appID: "appID"
        case .beginTime: "beginTime"
        case .endTime: "endTime"
        case .scanPath: "scanPath"
        case .blendShapes: "blendShapes"
        case .deviceInfo: "deviceInfo"
        case .gazerec: SessionExtensionCodec.objectKey
        case .timestamp: "timestamp"
        case .x: "x"
        case .y: "y"
        case .orientation: "orientation"
        case .trackingState: "trackingState"
        case .blendShapeLocation: "blendShapeLocation"
        case .value: "value"
        case .model: "model"
        case .screenSize: "screenSize"
        case .systemName: "systemName"
        case .systemVersion: "systemVersion"
        }
    }

    var snake: StaticString {
        switch self {
        case .appID: "app_id"
        case .beginTime: "begin_time"
        case .endTime: "end_time"
        case .scanPath: "scan_path"
        case .blendShapes: "blend_shapes"
        case .deviceInfo: "device_info"
        case .trackingState: "tracking_state"
        case .blendShapeLocation: "blend_shape_location"
        case .screenSize: "screen_size"
        case .systemName: "system_name"
        case .systemVersion: "system_version"
        default: camel
        }
    }

    func spelling(_ style: KeyStyle) -> StaticString { style == .camelCase ? camel : snake }

    /// A byte-matching table of `keys` in the accepted styles, mapping back to `SessionKey`.
    static func table(_ keys: [SessionKey], styles: [KeyStyle]) -> (KeyTable, [SessionKey]) {
        var spellings: [String] = []
        var mapped: [SessionKey] = []
        for key in keys {
            for style in styles {
                let text = key.spelling(style).description
                if !spellings.contains(text) {
                    spellings.append(text)
                    mapped.append(key)
                }
            }
        }
        return (KeyTable(spellings), mapped)
    }
}
