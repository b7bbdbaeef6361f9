/// A frame source that hands on another's frames (turned, paced, re-stamped, read ahead, observed):
/// its name, size and rate are the other's.
public protocol FrameSourceWrapper: FrameSource {
    /// The source whose frames this one hands on.
    var source: FrameSource { get }
}

extension FrameSourceWrapper {
    public var name: String { source.name }
    public var width: Int { source.width }
    public var height: Int { source.height }
    public var framesPerSecond: Double { source.framesPerSecond }
}
