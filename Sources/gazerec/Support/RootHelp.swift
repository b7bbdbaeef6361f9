/// The root command's help with the `--database` option `LeadingOptions` reads before the
/// subcommand: ArgumentParser renders `Gazerec`'s help without it, as the option is parsed on its
/// own first (a root option would also take `delete --database`).
enum RootHelp {
    static let usage = "USAGE: gazerec <subcommand>"

    /// `help` with `[--database <path>]` in its usage and the option first under OPTIONS, aligned
    /// with the options ArgumentParser listed there; nil when `help` is not the root command's.
    static func text(_ help: String) -> String? {
        var lines = help.components(separatedBy: "\n")
        guard let usage = lines.firstIndex(of: usage), let options = lines.firstIndex(of: "OPTIONS:"),
              options + 1 < lines.count else { return nil }
        lines[usage] = "USAGE: gazerec [--database <path>] <subcommand>"
        // The column ArgumentParser starts an option's help at, read from the line after the title.
        let next = lines[options + 1]
        let label = next.prefix { $0 == " " } + next.drop { $0 == " " }.prefix { $0 != " " }
        let column = label.count + next.dropFirst(label.count).prefix { $0 == " " }.count
        let option = "  --database <\(LeadingOptions.databaseValueName)>"
        let padding = String(repeating: " ", count: max(2, column - option.count))
        lines.insert(option + padding + LeadingOptions.databaseHelp, at: options + 1)
        return lines.joined(separator: "\n")
    }
}
