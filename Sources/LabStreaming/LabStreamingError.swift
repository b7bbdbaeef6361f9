/// Why a Lab Streaming Layer outlet or inlet could not be made or used.
///
/// Messages say what failed and what to do, and name no command-line flag: the CLI adds those.
public enum LabStreamingError: Error, CustomStringConvertible, Equatable {
    /// liblsl could not be loaded from any place gazerec looks (`LabStreamingLibrary.candidatePaths`).
    case libraryUnavailable(tried: [String], reason: String)
    /// liblsl refused to make a stream's description or outlet.
    case outletNotCreated(stream: String, reason: String)
    /// liblsl refused a sample (an LSL error code: -3 argument, -4 internal).
    case pushFailed(stream: String, code: Int32)
    /// No stream matching the predicate answered within the timeout.
    case streamNotFound(predicate: String, timeoutSeconds: Double)
    /// The stream was found but could not be subscribed to, or its clock not read.
    case inletNotCreated(stream: String, reason: String)

    public var description: String {
        switch self {
        case .libraryUnavailable(let tried, let reason):
            "cannot load liblsl, the Lab Streaming Layer library (tried \(tried.joined(separator: ", ")): \(reason). "
                + "Install it with the repository's Scripts/setup-lsl.sh (liblsl.so.2 from PyPI's pylsl 1.18 wheel), "
                + "or set GAZEREC_LIBLSL to the path of a liblsl.so.2."
        case .outletNotCreated(let stream, let reason):
            "cannot publish the LSL stream '\(stream)': \(reason)."
        case .pushFailed(let stream, let code):
            "cannot push a sample to the LSL stream '\(stream)': liblsl error \(code)."
        case .streamNotFound(let predicate, let timeoutSeconds):
            "no LSL stream matching \(predicate) answered within \(timeoutSeconds.secondsText) s. Start the program "
                + "that publishes it first, on this machine or the same network, and check the predicate "
                + "(for example type='Markers' or name='PsychoPyMarkers')."
        case .inletNotCreated(let stream, let reason):
            "cannot subscribe to the LSL stream '\(stream)': \(reason)."
        }
    }
}

extension Double {
    /// The shortest text for a number of seconds in a message (2, 0.5).
    var secondsText: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
