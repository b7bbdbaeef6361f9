import Foundation

/// The mapping between Unix time (gazerec's time base) and LSL's clock (`lsl_local_clock`),
/// measured once.
///
/// The offset is read by bracketing one `lsl_local_clock` reading between two Unix clock readings,
/// taking the tightest bracket of several tries: its error is at most half that bracket (a few
/// microseconds). Measured once per outlet or inlet, so a step of the Unix clock (NTP) during a
/// recording does not move the timestamps of a stream (LSL's clock is monotonic).
public struct LabClock: Sendable, Equatable {
    /// LSL clock seconds minus Unix seconds at the same moment.
    public let offsetSeconds: Double
    /// Half the tightest bracket: the largest error of `offsetSeconds`.
    public let uncertaintySeconds: Double

    /// A mapping with a known offset.
    public init(offsetSeconds: Double, uncertaintySeconds: Double = 0) {
        self.offsetSeconds = offsetSeconds
        self.uncertaintySeconds = uncertaintySeconds
    }

    /// Measures the offset of `library`'s clock against `unixClock` (the tightest of `tries` brackets).
    public init(measuring library: LabStreamingLibrary, tries: Int = 20,
                unixClock: () -> Double = { Date().timeIntervalSince1970 }) {
        var best = (offset: 0.0, bracket: Double.infinity)
        for _ in 0..<max(1, tries) {
            let before = unixClock()
            let lab = library.localClockSeconds()
            let after = unixClock()
            if after - before < best.bracket { best = (lab - (before + after) / 2, after - before) }
        }
        self.init(offsetSeconds: best.offset, uncertaintySeconds: best.bracket / 2)
    }

    /// The LSL clock time of a moment given in Unix seconds (a frame's capture time).
    public func labSeconds(unixSeconds: Double) -> Double { unixSeconds + offsetSeconds }

    /// The Unix time of a moment given on this machine's LSL clock.
    public func unixSeconds(labSeconds: Double) -> Double { labSeconds - offsetSeconds }
}
