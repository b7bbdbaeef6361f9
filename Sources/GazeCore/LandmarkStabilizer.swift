import GazeModel

/// Averages the landmark fits of a still face over the last frames, so one frame's landmarks carry
/// a fraction of a single fit's noise.
///
/// dlib's regression trees answer a slightly different box with slightly different landmarks;
/// on a still head those differences are noise, and the mean of several fits (from boxes the
/// tracker varies on purpose) is steadier and closer to the face than any one of them. Measured
/// on real webcam frames, placing the eye patches on the mean of 16 fits rather than on one fit
/// cut calibrated gaze error by an eighth.
///
/// The rigid points — the nose (27–35) and the eye corners (36, 39, 42, 45) — decide whether the
/// head is still: when the new fit's rigid points lie further from the running mean than
/// `resetThreshold` inter-ocular distances on average (the head moved), or when the frames are
/// more than `maximumGapSeconds` apart, the mean starts again from the new fit. Brows, nose and
/// eye corners are averaged over up to `window` fits; the points that move with expression, gaze
/// and blinks (jaw, eyelids, mouth) over the last `mobileWindow` only.
public struct LandmarkStabilizer: Sendable {
    /// Longest run of fits averaged for brows, nose and eye corners.
    public var window: Int
    /// Fits averaged for the jaw, eyelids and mouth.
    public var mobileWindow: Int
    /// Mean displacement of the rigid points from the running mean, in inter-ocular distances,
    /// above which the mean restarts.
    public var resetThreshold: Double
    public var maximumGapSeconds: Double

    /// The landmarks that follow the head rigidly (test for stillness).
    static let rigid: [Int] = Array(27...35) + [36, 39, 42, 45]
    /// Points averaged over the long window: brows, nose, eye corners.
    static let steady: Set<Int> = Set(Array(17...35) + [36, 39, 42, 45])

    private var history: [FaceLandmarks] = []
    private var lastTime: Double?

    public init(window: Int = 16, mobileWindow: Int = 3, resetThreshold: Double = 0.05, maximumGapSeconds: Double = 0.25) {
        precondition(window >= 1 && mobileWindow >= 1 && mobileWindow <= window)
        self.window = window
        self.mobileWindow = mobileWindow
        self.resetThreshold = resetThreshold
        self.maximumGapSeconds = maximumGapSeconds
    }

    /// How many fits the steady points' current mean holds (1 right after a reset).
    public var depth: Int { history.count }

    /// Forgets the face (the next fit starts a new mean).
    public mutating func reset() {
        history.removeAll(keepingCapacity: true)
        lastTime = nil
    }

    /// Adds the fit of the frame at `timeSeconds` and returns the stabilised landmarks.
    public mutating func update(_ fit: FaceLandmarks, timeSeconds: Double) -> FaceLandmarks {
        if let lastTime, abs(timeSeconds - lastTime) > maximumGapSeconds { history.removeAll(keepingCapacity: true) }
        lastTime = timeSeconds
        if !history.isEmpty {
            let mean = self.mean(count: history.count)
            var displacement = 0.0
            for index in Self.rigid { displacement += fit[index].distance(to: mean[index]) }
            displacement /= Double(Self.rigid.count)
            if displacement > resetThreshold * Swift.max(mean.interocularDistance, 1) { history.removeAll(keepingCapacity: true) }
        }
        if history.count == window { history.removeFirst() }
        history.append(fit)
        let steady = mean(count: history.count)
        let mobile = mean(count: Swift.min(mobileWindow, history.count))
        var points = mobile.points
        for index in Self.steady { points[index] = steady[index] }
        return FaceLandmarks(points: points)
    }

    /// The mean of the last `count` fits.
    private func mean(count: Int) -> FaceLandmarks {
        let recent = history.suffix(count)
        var sums = [Point2](repeating: .zero, count: FaceLandmarks.count)
        for fit in recent {
            for index in 0..<FaceLandmarks.count { sums[index] = sums[index] + fit[index] }
        }
        let scale = 1 / Double(recent.count)
        return FaceLandmarks(points: sums.map { $0 * scale })
    }
}
