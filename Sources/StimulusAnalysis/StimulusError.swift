import Foundation

/// Why a stimulus analysis cannot run on its inputs: data and a sentence, naming no command or flag.
public enum StimulusError: Error, Equatable, CustomStringConvertible {
    /// The screen rectangle has no area, or lies outside the session's screen.
    case badRectangle(reason: String)
    /// The stimulus's pixel size does not have the screen rectangle's aspect (it would have been shown stretched).
    case aspectMismatch(stimulusWidth: Int, stimulusHeight: Int, rectangleWidth: Double, rectangleHeight: Double)
    /// The areas of interest file does not describe areas of interest.
    case badAOIs(source: String, reason: String)
    /// A session cannot be analysed against the stimulus (it is named; the others still are).
    case sessionUnusable(sessionID: String, reason: String)
    /// A threshold or size is out of its range.
    case badParameter(name: String, reason: String)

    public var description: String {
        switch self {
        case .badRectangle(let reason):
            "the stimulus's screen rectangle is unusable: \(reason)"
        case let .aspectMismatch(width, height, rectangleWidth, rectangleHeight):
            "the stimulus is \(width)×\(height) pixels (aspect \(Self.ratio(Double(width) / Double(height)))) but its screen "
                + "rectangle is \(Self.number(rectangleWidth))×\(Self.number(rectangleHeight)) points (aspect "
                + "\(Self.ratio(rectangleWidth / rectangleHeight))): give the rectangle the stimulus actually filled"
        case let .badAOIs(source, reason):
            "cannot read the areas of interest in \(source): \(reason)"
        case let .sessionUnusable(sessionID, reason):
            "session \(sessionID) cannot be analysed: \(reason)"
        case let .badParameter(name, reason):
            "\(name) \(reason)"
        }
    }

    static func ratio(_ value: Double) -> String { String(format: "%.3f", value) }
    /// A number as `%g` writes it (the form every message gives numbers in).
    public static func number(_ value: Double) -> String { String(format: "%g", value) }
}
