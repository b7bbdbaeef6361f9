import Foundation
import GazeModel
import JSONStream
import StimulusAnalysis

/// A table of figures with named columns, written as CSV (a header, empty cells for missing
/// values) or as a JSON array of objects (null for missing values).
public struct StimulusTable: Sendable, Equatable {
    /// One cell: text, a number with a fixed count of decimals, a count, or nothing.
    public enum Cell: Sendable, Equatable {
        case text(String), number(Double, decimals: Int), count(Int), empty
    }

    public var columns: [String]
    public var rows: [[Cell]]

    /// The CSV text (`CSVWriter`'s quoting), a header line first.
    public var csv: String {
        var text = CSVWriter.line(columns)
        for row in rows {
            text += CSVWriter.line(row.map { cell in
                switch cell {
                case .text(let value): value
                case let .number(value, decimals): String(format: "%.\(decimals)f", value)
                case .count(let value): String(value)
                case .empty: ""
                }
            })
        }
        return text
    }

    /// The rows as JSON objects, members in column order.
    public var json: JSONValue {
        .array(rows.map { row in
            .object(zip(columns, row).map { column, cell in
                switch cell {
                case .text(let value): (column, .string(value))
                case let .number(value, decimals): (column, .number((value * pow(10, Double(decimals))).rounded() / pow(10, Double(decimals))))
                case .count(let value): (column, .number(Double(value)))
                case .empty: (column, .null)
                }
            })
        })
    }

    static func optional(_ value: Double?, _ decimals: Int) -> Cell { value.map { .number($0, decimals: decimals) } ?? .empty }

    /// The column names of the seven expression probabilities (`expressionHappyProbability`, …).
    static let expressionColumns = ExpressionName.allCases.map { "expression" + $0.rawValue.prefix(1).uppercased() + $0.rawValue.dropFirst() + "Probability" }
    /// The group rows' shares of participants per dominant expression (`happyShare`, …).
    static let shareColumns = ExpressionName.allCases.map { $0.rawValue + "Share" }
}

extension StimulusTable {
    /// The timeline's table: per-session rows, then group rows (session `group`) when given.
    public static func timeline(_ rows: [TimelineRow], group: [TimelineRow] = []) -> StimulusTable {
        var columns = ["session", "stimulusSeconds", "samples", "onStimulusShare", "gazeXPixels", "gazeYPixels",
                       "dispersionPixels", "fixations", "blinks", "dominantExpression"] + expressionColumns + ["smile"]
        if !group.isEmpty { columns += ["participants"] + shareColumns }
        let cells = (rows + group).map { row -> [Cell] in
            var cells: [Cell] = [.text(row.session ?? "group"), .number(row.stimulusSeconds, decimals: 3), .count(row.samples),
                                 optional(row.onStimulusShare, 4), optional(row.gazePixels?.x, 1), optional(row.gazePixels?.y, 1),
                                 optional(row.dispersionPixels, 1), .count(row.fixations), .count(row.blinks),
                                 row.dominantExpression.map { .text($0.rawValue) } ?? .empty]
            cells += ExpressionName.allCases.map { optional(row.expressionMeans?[$0], 4) }
            cells.append(optional(row.smile, 4))
            if !group.isEmpty {
                cells.append(row.participants.map { .count($0) } ?? .empty)
                cells += ExpressionName.allCases.indices.map { optional(row.dominantShares?[$0], 4) }
            }
            return cells
        }
        return StimulusTable(columns: columns, rows: cells)
    }

    /// The areas of interest's table: one row per session and area.
    public static func aoi(_ metrics: [AOIMetrics]) -> StimulusTable {
        StimulusTable(
            columns: ["session", "aoi", "dwellSeconds", "dwellShare", "timeToFirstFixationSeconds", "firstFixationSeconds",
                      "fixationCount", "visits", "dominantExpression", "smile", "totalFixationSeconds", "averageFixationSeconds",
                      "totalVisitSeconds", "averageVisitSeconds", "timeToFirstVisitSeconds"],
            rows: metrics.map { m in
                [.text(m.session), .text(m.aoi), .number(m.dwellSeconds, decimals: 3), optional(m.dwellShare, 4),
                 optional(m.timeToFirstFixationSeconds, 3), optional(m.firstFixationSeconds, 3), .count(m.fixationCount),
                 .count(m.visits), m.dominantExpression.map { .text($0.rawValue) } ?? .empty, optional(m.smile, 4),
                 .number(m.totalFixationSeconds, decimals: 3), optional(m.averageFixationSeconds, 3),
                 .number(m.totalVisitSeconds, decimals: 3), optional(m.averageVisitSeconds, 3), optional(m.timeToFirstVisitSeconds, 3)]
            })
    }

    /// The highlights' table, ranked.
    public static func highlights(_ highlights: [Highlight]) -> StimulusTable {
        StimulusTable(
            columns: ["rank", "startSeconds", "endSeconds", "participants", "expressionProbability", "dispersionPixels",
                      "cropX", "cropY", "cropWidth", "cropHeight"],
            rows: highlights.enumerated().map { index, h in
                [.count(index + 1), .number(h.startSeconds, decimals: 3), .number(h.endSeconds, decimals: 3), .count(h.participants),
                 .number(h.expressionProbability, decimals: 4), .number(h.dispersionPixels, decimals: 1), .count(h.cropX),
                 .count(h.cropY), .count(h.cropWidth), .count(h.cropHeight)]
            })
    }
}
