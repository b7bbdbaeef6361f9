import GazeModel

/// How often one session's gaze went from one area of interest to another.
public struct AOITransition: Sendable, Equatable {
    public var session: String
    public var group: String?
    public var from: String
    public var to: String
    /// Fixations in `from` whose next fixation in any area is in `to`.
    public var count: Int
}

/// One participant group's AOI figures: the mean over its participants of each one's figure.
public struct AOIGroupMetrics: Sendable, Equatable {
    public var group: String
    public var aoi: String
    /// Participants (sessions) in the group, and how many of them fixated the area at least once.
    public var participants: Int
    public var participantsFixating: Int
    /// Means over all the group's participants (a participant who never fixated counts 0).
    public var dwellSeconds: Double
    public var fixationCount: Double
    public var totalFixationSeconds: Double
    public var visits: Double
    public var totalVisitSeconds: Double
    /// Means over the participants who fixated the area (nil: none did).
    public var timeToFirstFixationSeconds: Double?
    public var averageFixationSeconds: Double?
    public var averageVisitSeconds: Double?
}

extension AOIAnalysis {
    /// Every ordered pair of different areas, with how often the session's gaze went from the first
    /// to the second: consecutive fixations (starting while the stimulus was shown), each in the areas
    /// holding its centre at its start, fixations in no area skipped; a fixation in both areas of a
    /// pair neither leaves nor enters it.
    public static func transitions(_ viewing: StimulusViewing, areas: [AreaOfInterest], group: String? = nil) -> [AOITransition] {
        var counts = [[Int]](repeating: [Int](repeating: 0, count: areas.count), count: areas.count)
        var previous: Set<Int>?
        for fixation in viewing.fixations {
            guard let pixel = fixation.pixel else { continue }
            let current = Set(areas.indices.filter { index in
                areas[index].existence(durationSeconds: viewing.durationSeconds)?.contains(fixation.startSeconds) == true
                    && areas[index].contains(pixel, at: fixation.startSeconds)
            })
            guard !current.isEmpty else { continue }
            if let previous {
                for from in previous.subtracting(current) { for to in current.subtracting(previous) { counts[from][to] += 1 } }
            }
            previous = current
        }
        var result: [AOITransition] = []
        for from in areas.indices {
            for to in areas.indices where to != from {
                result.append(AOITransition(session: viewing.sessionID, group: group, from: areas[from].name,
                                            to: areas[to].name, count: counts[from][to]))
            }
        }
        return result
    }

    /// Per group (in order of first appearance) and area (in the metrics' order): the means of its
    /// participants' figures. A metric without a group counts in the group "".
    public static func groups(_ metrics: [AOIMetrics]) -> [AOIGroupMetrics] {
        var order: [String] = [], areas: [String] = []
        for m in metrics {
            if !order.contains(m.group ?? "") { order.append(m.group ?? "") }
            if !areas.contains(m.aoi) { areas.append(m.aoi) }
        }
        return order.flatMap { group in
            areas.compactMap { area -> AOIGroupMetrics? in
                let members = metrics.filter { ($0.group ?? "") == group && $0.aoi == area }
                guard !members.isEmpty else { return nil }
                func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
                let fixating = members.filter { $0.fixationCount > 0 }
                return AOIGroupMetrics(
                    group: group, aoi: area, participants: members.count, participantsFixating: fixating.count,
                    dwellSeconds: mean(members.map(\.dwellSeconds))!, fixationCount: mean(members.map { Double($0.fixationCount) })!,
                    totalFixationSeconds: mean(members.map(\.totalFixationSeconds))!, visits: mean(members.map { Double($0.visits) })!,
                    totalVisitSeconds: mean(members.map(\.totalVisitSeconds))!,
                    timeToFirstFixationSeconds: mean(fixating.compactMap(\.timeToFirstFixationSeconds)),
                    averageFixationSeconds: mean(fixating.compactMap(\.averageFixationSeconds)),
                    averageVisitSeconds: mean(fixating.compactMap(\.averageVisitSeconds)))
            }
        }
    }
}
