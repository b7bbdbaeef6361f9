import ArgumentParser

/// Typos in command and option names, named before anything else is said about the arguments.
///
/// ArgumentParser reports a missing argument or a failed `validate()` before an unknown option
/// (`export --al` said "Give one or more session ids, or --all"), and an unknown subcommand as an
/// unknown option of the root (`exprot --all` said "Unknown option '--all'"). This check runs
/// first: it finds the subcommand the words name and every `--option` that command does not
/// know, and suggests the nearest name.
enum ArgumentCheck {
    /// The usage error for the first unknown command or option in `arguments`, if any.
    static func typo(in arguments: [String], root: any ParsableCommand.Type) -> String? {
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
            }
            command = next
            path.append(word)
            index += 1
        }
        let known = optionNames(of: command)
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

    /// `--option -1` as `--option=-1`: ArgumentParser reads a word that begins with `-` as an
    /// option, so a negative number after an option was "Missing value" instead of reaching the
    /// option's own check (`--duration must be a positive number of seconds`).
    static func joiningNegativeValues(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" {
                result += arguments[index...]
                break
            }
            if word.hasPrefix("--"), word.count > 2, !word.contains("="), index + 1 < arguments.count,
               isNegativeNumber(arguments[index + 1]) {
                result.append(word + "=" + arguments[index + 1])
                index += 2
                continue
            }
            result.append(word)
            index += 1
        }
        return result
    }

    /// Whether `word` is a negative number such as `-1`, `-0.5` or `-.5`.
    static func isNegativeNumber(_ word: String) -> Bool {
        word.count > 1 && word.hasPrefix("-") && Double(word) != nil && !word.dropFirst().hasPrefix("-")
    }

    static func name(of command: any ParsableCommand.Type) -> String {
        command.configuration.commandName ?? command._commandName
    }

    /// Every long option name a command accepts, hidden ones included, read from its full help.
    static func optionNames(of command: any ParsableCommand.Type) -> Set<String> {
        let help = command.helpMessage(includeHidden: true, columns: 10_000)
        var names: Set<String> = ["--help", "--version", "--experimental-dump-help", "--generate-completion-script"]
        var current = ""
        for character in help + " " {
            if character == "-" || character.isLetter || character.isNumber {
                current.append(character)
                continue
            }
            if current.hasPrefix("--"), current.count > 2, current.dropFirst(2).first?.isLetter == true {
                names.insert(current)
            }
            current = ""
        }
        return names
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
