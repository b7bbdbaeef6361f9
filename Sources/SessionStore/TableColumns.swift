import GRDB

/// A table's columns as its `Columns` enum names them: the one spelling of a column the table
/// types write statements and read rows with.
protocol TableColumn: ColumnExpression, RawRepresentable, CaseIterable, Hashable where RawValue == String {}

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

    /// One `?` per column, comma-separated.
    var placeholders: String { map { _ in "?" }.joined(separator: ", ") }
}
