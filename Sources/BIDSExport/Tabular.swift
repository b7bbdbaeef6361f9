import JSONStream

/// A BIDS table held as text cells: named columns with their sidecar descriptions, and rows.
struct Tabular {
    /// A column: its name and its description in the sidecar (`Description`, `Units`, `Levels`…).
    struct Column {
        var name: String
        var description: [(String, JSONValue)]
    }

    var columns: [Column]
    var rows: [[String]] = []

    /// The table as TSV text: one line per row, cells separated by tabs, with a header line for
    /// plain `.tsv` files and none for `.tsv.gz` (whose columns the sidecar names).
    func text(header: Bool) -> [UInt8] {
        var text = header ? columns.map(\.name).joined(separator: "\t") + "\n" : ""
        text.reserveCapacity(rows.count * 64)
        for row in rows {
            text += row.joined(separator: "\t")
            text += "\n"
        }
        return Array(text.utf8)
    }

    /// The column descriptions as sidecar members (`"x_coordinate": {…}`), in column order.
    var sidecarMembers: [(String, JSONValue)] {
        columns.map { ($0.name, .object($0.description)) }
    }

    /// A number cell: the shortest text that reads back to the same double; `n/a` when absent or not finite.
    static func cell(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "n/a" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A text cell: tabs and line breaks (which would split the cell) become spaces; `n/a` when absent or empty.
    static func cell(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "n/a" }
        return String(text.map { $0 == "\t" || $0.isNewline ? " " : $0 })
    }

    /// A table of `columns` with one row per sample, in their order, and each row's time in
    /// seconds since `begin` (the run's start): the one loop of every timed physio table.
    static func timed<Sample>(_ columns: [Column], _ samples: [Sample], since begin: Double, time: (Sample) -> Double,
                              row: (Sample, Double) -> [String]) -> (table: Tabular, timestamps: [Double]) {
        var table = Tabular(columns: columns)
        var timestamps: [Double] = []
        timestamps.reserveCapacity(samples.count)
        table.rows.reserveCapacity(samples.count)
        for sample in samples {
            let seconds = runSeconds(time(sample), since: begin)
            timestamps.append(seconds)
            table.rows.append(row(sample, seconds))
        }
        return (table, timestamps)
    }

    /// Seconds since the run's start, rounded to the microsecond.
    static func runSeconds(_ unixSeconds: Double, since begin: Double) -> Double {
        ((unixSeconds - begin) * 1_000_000).rounded() / 1_000_000
    }

    /// A column description.
    static func column(_ name: String, _ description: String, units: String? = nil, longName: String? = nil,
                       extra: [(String, JSONValue)] = []) -> Column {
        var members: [(String, JSONValue)] = []
        if let longName { members.append(("LongName", .string(longName))) }
        members.append(("Description", .string(description)))
        if let units { members.append(("Units", .string(units))) }
        return Column(name: name, description: members + extra)
    }

    /// A `Levels` member: each value of a categorical column and what it means.
    static func levels(_ pairs: [(String, String)]) -> (String, JSONValue) {
        ("Levels", .object(pairs.map { ($0.0, .string($0.1)) }))
    }
}

/// JSON documents of the dataset (sidecars, `dataset_description.json`): pretty, two-space indent, one final newline.
enum SidecarJSON {
    static func bytes(_ value: JSONValue) -> [UInt8] {
        // A memory sink cannot fail, and a value tree holds nothing the writer refuses.
        (try? JSONDocument.bytes(value)) ?? []
    }
}
