import StimulusAnalysis

extension StimulusTable {
    /// The data-quality columns added to every per-viewing row (`session` first): the session's
    /// participant group, its share of valid samples, its calibration's accuracy and its precision,
    /// each with its unit (`degrees` where the geometry is known, else `points`). The first
    /// `rowCounts[i]` rows after those of earlier viewings are `viewings[i]`'s; the rows after them
    /// (a timeline's group rows) leave the columns empty.
    func withQuality(_ viewings: [StimulusViewing], rowCounts: [Int], groups: [String: String]) -> StimulusTable {
        var result = self
        result.columns += ["group", "validShare", "accuracy", "accuracyUnit", "precision", "precisionUnit"]
        let owners = zip(viewings, rowCounts).flatMap { viewing, count in Array(repeating: viewing, count: count) }
        result.rows = rows.enumerated().map { index, row in
            guard index < owners.count else { return row + [Cell](repeating: .empty, count: 6) }
            let viewing = owners[index], quality = viewing.quality
            return row + [groups[viewing.sessionID].map { .text($0) } ?? .empty, Self.optional(quality.validShare, 4)]
                + Self.measure(degrees: quality.accuracyDegrees, points: quality.accuracyPoints)
                + Self.measure(degrees: quality.precisionDegrees, points: quality.precisionPoints)
        }
        return result
    }

    /// A value and its unit: degrees when known, else points, else empty.
    private static func measure(degrees: Double?, points: Double?) -> [Cell] {
        if let degrees { return [.number(degrees, decimals: 3), .text("degrees")] }
        if let points { return [.number(points, decimals: 2), .text("points")] }
        return [.empty, .empty]
    }

    /// One row per participant group and area: its participants' mean figures.
    public static func aoiGroups(_ groups: [AOIGroupMetrics]) -> StimulusTable {
        StimulusTable(
            columns: ["group", "aoi", "participants", "participantsFixating", "dwellSeconds", "fixationCount", "totalFixationSeconds",
                      "averageFixationSeconds", "visits", "totalVisitSeconds", "averageVisitSeconds", "timeToFirstFixationSeconds"],
            rows: groups.map { g in
                [.text(g.group), .text(g.aoi), .count(g.participants), .count(g.participantsFixating), .number(g.dwellSeconds, decimals: 3),
                 .number(g.fixationCount, decimals: 2), .number(g.totalFixationSeconds, decimals: 3), optional(g.averageFixationSeconds, 3),
                 .number(g.visits, decimals: 2), .number(g.totalVisitSeconds, decimals: 3), optional(g.averageVisitSeconds, 3),
                 optional(g.timeToFirstFixationSeconds, 3)]
            })
    }

    /// The transitions in long form: one row per session and ordered pair of different areas.
    public static func transitions(_ transitions: [AOITransition]) -> StimulusTable {
        StimulusTable(columns: ["session", "group", "from", "to", "count"], rows: transitions.map { t in
            [.text(t.session), t.group.map { .text($0) } ?? .empty, .text(t.from), .text(t.to), .count(t.count)]
        })
    }
}
