import StimulusAnalysis

extension StimulusTable {
    /// The data-quality columns added to every per-session row (`session` first): the session's
    /// participant group, its share of valid samples, its calibration's accuracy and its precision,
    /// each with its unit (`degrees` where the geometry is known, else `points`). Other rows
    /// (a timeline's group rows) leave them empty.
    func withQuality(_ viewings: [StimulusViewing], groups: [String: String]) -> StimulusTable {
        var result = self
        result.columns += ["group", "validShare", "accuracy", "accuracyUnit", "precision", "precisionUnit"]
        let bySession = Dictionary(viewings.map { ($0.sessionID, $0.quality) }, uniquingKeysWith: { a, _ in a })
        result.rows = rows.map { row in
            guard case .text(let session)? = row.first, let quality = bySession[session] else {
                return row + [Cell](repeating: .empty, count: 6)
            }
            return row + [groups[session].map { .text($0) } ?? .empty, Self.optional(quality.validShare, 4)]
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
