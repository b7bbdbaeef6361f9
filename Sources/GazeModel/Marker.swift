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
