import ArgumentParser
import Foundation

/// Typos in command and option names, named before anything else is said about the arguments.
///
/// ArgumentParser reports a missing argument or a failed `validate()` before an unknown option
/// (`export --al` said "Give one or more session ids, or --all"), and an unknown subcommand as an
/// unknown option of the root (`exprot --all` said "Unknown option '--all'"); its own "did you
/// mean" covers only options, and only once `validate()` passed. When ArgumentParser refuses the
/// arguments, this check looks first: it finds the subcommand the words name and every `--option`
/// that command does not know (the names ArgumentParser's own description of the command lists),
/// and suggests the nearest name.
enum ArgumentCheck {
    /// The usage error for the first unknown command or option in `arguments`, if any.
    static func typo(in arguments: [String], root: any ParsableCommand.Type,
                     rootOptions: any ParsableArguments.Type) -> String? {
        var command: any ParsableCommand.Type = root
        var path = [root.configuration.commandName ?? "gazerec"]
        var index = 0
        // The subcommand path: leading words that name subcommands.
        while index < arguments.count {
            let word = arguments[index]
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !word.hasPrefix("-") else { break }
            if word == "help" && command == root { return nil }
            guard let next = subcommands.first(where: { name(of: $0) == word }) else {
                let names = subcommands.map(name(of:))
                return "unknown command '\(word)' for '\(path.joined(separator: " "))'"
                    + (nearest(word, in: names).map { ". Did you mean '\($0)'?" } ?? ". Commands: \(names.joined(separator: ", ")).")
                    + " See '\(path.joined(separator: " ")) --help'."
            }
            command = next
            path.append(word)
            index += 1
        }
        let known = optionNames(of: command).union(command == root ? optionNames(of: rootOptions) : [])
        for word in arguments[index...] {
            if word == "--" { break }
            guard word.hasPrefix("--"), word.count > 2 else { continue }
            let option = String(word.split(separator: "=", maxSplits: 1)[0])
            if known.contains(option) { continue }
            return "unknown option '\(option)' for '\(path.joined(separator: " "))'."
                + (nearest(option, in: known.sorted()).map { " Did you mean '\($0)'?" } ?? "")
                + " See '\(path.joined(separator: " ")) --help'."
        }
        return nil
    }

    /// A usage error's line: `message` ending in a full stop, then the command's help named
    /// (`See 'gazerec start --help'.`), unless it names it already.
    static func usageLine(_ message: String, arguments: [String], root: any ParsableCommand.Type) -> String {
        guard !message.contains(" --help'") else { return message }
        var line = message
        if let last = line.last, !".!?".contains(last) { line += "." }
        return line + " See '\(commandPath(in: arguments, root: root)) --help'."
    }

    /// The words of the command `arguments` run (`gazerec calibrations export`), for messages.
    static func commandPath(in arguments: [String], root: any ParsableCommand.Type) -> String {
        var command: any ParsableCommand.Type = root
        var path = [name(of: root)]
        for word in arguments {
            guard let next = command.configuration.subcommands.first(where: { name(of: $0) == word }) else { break }
            command = next
            path.append(word)
        }
        return path.joined(separator: " ")
    }

    static func name(of command: any ParsableCommand.Type) -> String {
        command.configuration.commandName ?? command._commandName
    }

    /// Every long option name a command accepts, hidden ones included, as ArgumentParser describes
    /// the command (`--experimental-dump-help`).
    static func optionNames(of command: any ParsableArguments.Type) -> Set<String> {
        var names: Set<String> = ["--help", "--version", "--experimental-dump-help", "--generate-completion-script"]
        guard let tool = try? JSONDecoder().decode(ToolDescription.self, from: Data(command._dumpHelp().utf8)) else { return names }
        for argument in tool.command.arguments ?? [] {
            for name in argument.names ?? [] where name.kind == "long" { names.insert("--" + name.name) }
        }
        return names
    }

    /// The part of ArgumentParser's description of a command read here.
    private struct ToolDescription: Decodable {
        struct Name: Decodable { let kind: String, name: String }
        struct Argument: Decodable { let names: [Name]? }
        struct Command: Decodable { let arguments: [Argument]? }
        let command: Command
    }

    /// The candidate closest to `word` by edit distance, when close enough to be the one meant.
    static func nearest(_ word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word, $0)) }.min { $0.1 < $1.1 }
        guard let (best, score) = scored else { return nil }
        let prefix = candidates.filter { $0.hasPrefix(word) }
        if prefix.count == 1, word.count >= 3 { return prefix[0] }
        return score <= max(2, word.count / 3) ? best : nil
    }

    /// Levenshtein distance, with a swap of two neighbours counted as one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
