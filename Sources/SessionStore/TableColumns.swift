import GRDB

/// A table's columns as its `Columns` enum names them: the one spelling of a column the table
/// types write statements and read rows with. A column interpolated into a statement's text
/// (`"… WHERE \(Columns.sessionRowID) = ?"`) is its name.
protocol TableColumn: ColumnExpression, RawRepresentable, CaseIterable, Hashable, CustomStringConvertible where RawValue == String {}

extension TableColumn {
    /// The column's name, as a statement spells it.
    var description: String { rawValue }
}

extension TableColumn {
    /// A row's values in the order of `allCases` (the order of an insert's column list); a column
    /// missing from `values` is NULL.
    static func arguments(_ values: [Self: (any DatabaseValueConvertible)?]) -> StatementArguments {
        let ordered: [(any DatabaseValueConvertible)?] = allCases.map { column in values[column].flatMap { $0 } }
        return StatementArguments(ordered)
    }
}

extension Array where Element: TableColumn {
    /// The names, comma-separated, for a statement's column list.
    var names: String { map(\.rawValue).joined(separator: ", ") }

    /// `name = ?` per column, comma-separated, for an update's SET.
    var assignments: String { map { "\($0.rawValue) = ?" }.joined(separator: ", ") }

    /// One `?` per column, comma-separated.
    var placeholders: String { map { _ in "?" }.joined(separator: ", ") }
}
