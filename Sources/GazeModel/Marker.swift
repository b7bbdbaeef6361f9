/// An event marker of an experiment: a label at a moment of a recording ("stimulus A on"), with
/// optional data (compact JSON text), as experiment software sends them (`gazerec mark`).
///
/// A marker's interval runs from its time until the next marker's (the last one's until the
/// session ends): the CSV labels each sample with the marker whose interval holds it.
public struct Marker: Sendable, Equatable {
    /// Unix seconds, the frames' time base.
    public var timestampSeconds: Double
    public var label: String
    /// Compact JSON text given with the marker, if any.
    public var dataJSON: String?

    public init(timestampSeconds: Double, label: String, dataJSON: String? = nil) {
        self.timestampSeconds = timestampSeconds
        self.label = label
        self.dataJSON = dataJSON
    }
}

extension Array where Element == Marker {
    /// The span from the first marker labelled `from` to the first marker labelled `to` after it
    /// (the session's end when `to` is nil: until the next marker of any label); nil when absent.
    public func interval(from: String, to: String?) -> (start: Double, end: Double)? {
        let sorted = self.sorted { $0.timestampSeconds < $1.timestampSeconds }
        guard let startIndex = sorted.firstIndex(where: { $0.label == from }) else { return nil }
        let start = sorted[startIndex].timestampSeconds
        let later = sorted[(startIndex + 1)...]
        if let to {
            guard let end = later.first(where: { $0.label == to }) else { return nil }
            return (start, end.timestampSeconds)
        }
        return (start, later.first?.timestampSeconds ?? .infinity)
    }
}

/// The rule for the data kept with a marker: compact JSON text of at most `maximumBytes` bytes
/// (64 KiB) in UTF-8.
///
/// A marker is one row beside the recorder's batches and one member of the export; data larger
/// than this belongs in a file the marker names. A refusal says the size and the limit, and never
/// quotes the data.
public enum MarkerDataRule {
    /// The most bytes of compact JSON a marker keeps (64 KiB).
    public static let maximumBytes = 65_536

    /// Why `compactJSON` cannot be kept with a marker, or nil when it can.
    public static func problem(_ compactJSON: String) -> MarkerDataProblem? {
        let bytes = compactJSON.utf8.count
        return bytes > maximumBytes ? .tooLarge(bytes: bytes) : nil
    }
}

/// What is wrong with a marker's data, as data and a sentence that quotes none of it.
public enum MarkerDataProblem: Sendable, Equatable, CustomStringConvertible {
    /// More than `MarkerDataRule.maximumBytes` bytes of compact JSON.
    case tooLarge(bytes: Int)

    public var description: String {
        switch self {
        case let .tooLarge(bytes):
            return "is \(bytes) bytes of JSON; the limit is \(MarkerDataRule.maximumBytes) bytes (64 KiB): "
                + "keep larger data in a file and name the file in the marker"
        }
    }
}
