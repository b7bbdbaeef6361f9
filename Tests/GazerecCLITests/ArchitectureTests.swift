import Foundation
import Testing
import TestSupport

/// The layering the modules promise (docs/Architecture.md), checked on the sources themselves.
@Suite("Architecture")
struct ArchitectureTests {
    static let sources = Fixtures.repositoryRoot.appendingPathComponent("Sources")

    /// The modules of ours each module may import.
    static let allowed: [String: Set<String>] = [
        "JSONStream": [],
        "GazeModel": [],
        "Channels": [],
        "ShapeRegression": [],
        "GazeCore": ["GazeModel"],
        "GazeAnalysis": ["GazeModel"],
        "GazeFigures": ["GazeModel", "GazeAnalysis", "CZlib"],
        "BIDSExport": ["GazeModel", "GazeAnalysis", "JSONStream", "CZlib"],
        "GazeCapture": ["GazeModel", "GazeCore", "Channels", "CVideoDecoder", "CVideoEncoder", "CV4L2"],
        "GazeVision": ["GazeModel", "GazeCore", "GazeCapture", "Channels", "CDlibShim", "ShapeRegression"],
        "SessionStore": ["GazeModel", "GazeAnalysis", "GazeCalibration", "JSONStream", "Channels"],
        "SessionExport": ["BIDSExport", "GazeAnalysis", "GazeModel", "JSONStream", "SessionStore"],
        "GazeCalibration": ["GazeModel", "GazeCore", "JSONStream"],
        "FaceExpression": ["GazeModel", "GazeCore", "CONNXRuntime"],
        "LabServer": ["CLibCrypto", "CLibPQ", "GazeModel", "JSONStream", "SessionExport", "SessionStore"],
        "LabStreaming": ["CLSL", "GazeModel"],
        "Recorder": ["GazeModel", "GazeCore", "GazeAnalysis", "GazeCapture", "GazeVision", "GazeCalibration", "SessionExport", "SessionStore",
                     "JSONStream", "Channels", "FaceExpression", "LabStreaming"],
        "SessionFigures": ["GazeModel", "GazeAnalysis", "GazeFigures", "SessionExport", "SessionStore"],
        "StimulusAnalysis": ["GazeModel", "GazeAnalysis", "JSONStream"],
        "StimulusStudy": ["GazeModel", "GazeAnalysis", "GazeCapture", "JSONStream", "SessionStore", "StimulusAnalysis"],
        "GazeKit": ["GazeModel", "GazeCore", "GazeAnalysis", "GazeFigures", "BIDSExport", "GazeCapture", "GazeVision", "GazeCalibration", "SessionStore",
                    "SessionExport", "SessionFigures", "Recorder", "JSONStream", "StimulusAnalysis", "StimulusStudy"],
    ]

    static let ours: Set<String> = Set(allowed.keys).union(["CFFmpeg", "CVideoDecoder", "CVideoEncoder", "CV4L2", "CDlibShim",
                                                           "CLibPQ", "CLibCrypto", "CZlib", "CONNXRuntime", "CLSL", "gazerec", "GazerecBench"])

    /// Every Swift module under Sources: each must have its allowed imports listed above (the CLI and
    /// the benchmarks may import any library).
    @Test("every library module has its allowed imports listed")
    func everyModuleListed() throws {
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { module in
            (try? Self.swiftFiles(module).isEmpty == false) ?? false
        }
        for module in modules where !["gazerec", "GazerecBench"].contains(module) {
            #expect(Self.allowed[module] != nil, "Sources/\(module) is not listed in ArchitectureTests.allowed")
        }
    }

    static func swiftFiles(_ module: String) throws -> [URL] {
        let folder = sources.appendingPathComponent(module)
        return try FileManager.default.subpathsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".swift") }.map { folder.appendingPathComponent($0) }
    }

    @Test("no module imports a module above it", arguments: allowed.keys.sorted())
    func imports(_ module: String) throws {
        var read = 0
        for file in try Self.swiftFiles(module) {
            let names = Self.importedModules(try String(contentsOf: file, encoding: .utf8)).filter(Self.ours.contains)
            read += names.count
            for name in Self.forbiddenImports(module, names) {
                Issue.record("\(module)/\(file.lastPathComponent) imports \(name)")
            }
        }
        // A module allowed to import some of ours that seems to import none is a sign the reader missed its imports.
        #expect(read > 0 || Self.allowed[module]!.isEmpty, "no import of ours read in \(module)")
    }

    /// The modules a Swift source imports, in order: every form of import declaration (with
    /// attributes such as `@_exported`, `@preconcurrency` or `@testable`, an access level, indented
    /// under `#if`, or of one declaration: `import struct M.T` → M); none in comments or strings.
    static func importedModules(_ text: String) -> [String] {
        FunctionLengths.code(text).compactMap { line in
            line.firstMatch(of: importDeclaration).map { String($0.output.1) }
        }
    }

    nonisolated(unsafe) static let importDeclaration = try! Regex<(Substring, Substring)>(
        #"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)"#)

    /// Those of `imported` (modules of ours) that `module` may not import.
    static func forbiddenImports(_ module: String, _ imported: [String]) -> [String] {
        imported.filter { Self.ours.contains($0) && !(Self.allowed[module]?.contains($0) ?? false) }
    }

    @Test("the import reader sees every form of import declaration, and a forbidden one fails the check")
    func importReader() {
        let text = """
            import Foundation
            @_exported import GazeVision
            @preconcurrency import Recorder
            public import SessionStore
            #if canImport(Glibc)
                import GazeCapture
            #endif
            import struct LabServer.LabDatabase
            @testable internal import GazeKit
            // import BIDSExport
            let s = "import BIDSExport"
            """
        let names = Self.importedModules(text)
        #expect(names == ["Foundation", "GazeVision", "Recorder", "SessionStore", "GazeCapture", "LabServer", "GazeKit"])
        #expect(Self.forbiddenImports("GazeCore", names) == ["GazeVision", "Recorder", "SessionStore", "GazeCapture", "LabServer",
                                                             "GazeKit"])
        #expect(Self.forbiddenImports("GazeKit", ["GazeVision", "Recorder", "SessionStore"]).isEmpty)
        #expect(Self.forbiddenImports("GazeKit", ["LabServer"]) == ["LabServer"])
    }

    /// The string literals of a Swift source, comments left out (single-line and multi-line strings).
    static func stringLiterals(_ text: String) -> [String] {
        var literals: [String] = []
        var inBlock = false
        var block = ""
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            if inBlock {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("\"\"\"") {
                    literals.append(block)
                    block = ""
                    inBlock = false
                } else {
                    block += line + "\n"
                }
                continue
            }
            let code = line.trimmingCharacters(in: .whitespaces).hasPrefix("//") ? "" : line
            if code.hasSuffix("\"\"\"") && !code.trimmingCharacters(in: .whitespaces).hasPrefix("\"\"\"") {
                inBlock = true
                continue
            }
            var characters = code[...]
            while let quote = characters.firstIndex(of: "\"") {
                characters = characters[characters.index(after: quote)...]
                literal(&characters, into: &literals)
            }
        }
        return literals
    }

    /// Reads one single-line string literal from just after its opening quote, consuming through
    /// its closing quote; a literal nested in an interpolation (`"a \(b ? "c" : "d")"`) is read
    /// too, and its text stays in the outer literal as well.
    static func literal(_ characters: inout Substring, into literals: inout [String]) {
        var text = ""
        let slot = literals.count
        literals.append("")
        while let character = characters.popFirst() {
            if character == "\"" { break }
            text.append(character)
            guard character == "\\", let next = characters.popFirst() else { continue }
            text.append(next)
            guard next == "(" else { continue }
            // An interpolation: code up to its matching parenthesis, string literals inside it nested.
            var depth = 1
            while depth > 0, let inner = characters.popFirst() {
                text.append(inner)
                if inner == "(" { depth += 1 } else if inner == ")" { depth -= 1 } else if inner == "\"" {
                    let before = characters
                    literal(&characters, into: &literals)
                    text += before[before.startIndex..<characters.startIndex]
                }
            }
        }
        literals[slot] = text
    }

    /// The subcommands of the CLI, from its help snapshots (`gazerec-calibrations-list.txt` → "calibrations").
    static let subcommands: Set<String> = {
        let folder = Fixtures.repositoryRoot.appendingPathComponent("Tests/GazerecCLITests/HelpSnapshots")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return Set(names.compactMap { name -> String? in
            let parts = name.replacingOccurrences(of: ".txt", with: "").split(separator: "-")
            return parts.count > 1 ? String(parts[1]) : nil
        })
    }()

    @Test("no library source outside the CLI names a command-line flag or subcommand in a string",
          arguments: allowed.keys.sorted())
    func noFlagsInLibraries(_ module: String) throws {
        #expect(Self.subcommands.count > 20)
        for file in try Self.swiftFiles(module) {
            for literal in Self.flagLiterals(try String(contentsOf: file, encoding: .utf8)) {
                Issue.record("\(module)/\(file.lastPathComponent): \"\(literal)\"")
            }
        }
    }

    /// The string literals of a source that name a flag (`--input`) or a subcommand (`gazerec start`).
    static func flagLiterals(_ text: String) -> [String] {
        let flag = try! Regex(#"(^|[\s('"`])--[a-z][a-z-]*"#)
        let command = try! Regex("gazerec (" + Self.subcommands.sorted().joined(separator: "|") + ")\\b")
        return Self.stringLiterals(text).filter { $0.contains(flag) || $0.contains(command) }
    }

    @Test("the flag check finds a flag in a literal nested in an interpolation")
    func flagInInterpolation() {
        let text = #"""
            let a = "read \(name) with \(strict ? "--strict" : "no check")"
            let b = "\(count) frames"
            """#
        #expect(Self.stringLiterals(text) == [#"read \(name) with \(strict ? "--strict" : "no check")"#, "--strict",
                                               "no check", #"\(count) frames"#])
        #expect(Self.flagLiterals(text).count == 2)
        #expect(Self.flagLiterals(#"let c = "\(a) \(b ? "x" : "y")""#).isEmpty)
    }

    /// Whether a SessionStore or LabServer file may hold SQL: the store's table types (one per
    /// table, `…Table.swift`), the migrations, and the lab server's schema, queries and roles
    /// (`Lab….swift`); not its connection (the wire protocol) nor its transfer formats.
    static func mayHoldSQL(_ module: String, _ file: URL) -> Bool {
        let name = file.lastPathComponent
        switch module {
        case "SessionStore": return name.hasSuffix("Table.swift") || name == "SessionDatabase.swift" || name.hasSuffix("Migrations.swift")
        case "LabServer": return name.hasPrefix("Lab")
        default: return false
        }
    }

    @Test("SQL appears only in the store's table types and migrations", arguments: allowed.keys.sorted())
    func sqlOnlyInTableTypes(_ module: String) throws {
        for file in try Self.swiftFiles(module) where !Self.mayHoldSQL(module, file) {
            for literal in Self.sqlLiterals(try String(contentsOf: file, encoding: .utf8)) {
                Issue.record("\(module)/\(file.lastPathComponent) holds SQL: \"\(literal)\"")
            }
        }
    }

    /// The string literals of a source that hold SQL, in any letter case: a statement's opening
    /// words (`select … from`, `insert into`, `create table`, `pragma name`, `copy t (…) from`, …).
    static func sqlLiterals(_ text: String) -> [String] {
        let sql = try! Regex(#"\b(SELECT\b[^.;!?]*?\bFROM\s+[\w"]|INSERT\s+(OR\s+\w+\s+)?INTO|DELETE\s+FROM|UPDATE\s+[\w"]+\s+SET|CREATE\s+(TEMP\s+|TEMPORARY\s+)?(TABLE|(UNIQUE\s+)?INDEX|TRIGGER|VIEW|ROLE|DATABASE|SCHEMA)|DROP\s+(TABLE|INDEX|TRIGGER|VIEW|ROLE|DATABASE|SCHEMA)|ALTER\s+(TABLE|ROLE|DATABASE)|PRAGMA\s+\w+|GRANT\s+\w+|REVOKE\s+\w+|COPY\s+\w+\s*(\(|FROM\b|TO\b))"#)
            .ignoresCase()
        return Self.stringLiterals(text).filter { $0.contains(sql) }
    }

    @Test("the SQL check finds SQL in any letter case, and not English that shares its words")
    func sqlReader() {
        let text = """
            let a = "select id from session where id = ?"
            let b = "Insert Into marker (t) VALUES (?)"
            let c = "pragma journal_mode"
            let d = "update session set name = ?"
            let e = "delete the session's video"
            let f = "Open a writable copy once with this version"
            let g = "select a target"
            """
        #expect(Self.sqlLiterals(text).count == 4)
        let lab = Self.sources.appendingPathComponent("LabServer")
        #expect(!Self.mayHoldSQL("LabServer", lab.appendingPathComponent("PostgresConnection.swift")))
        #expect(Self.mayHoldSQL("LabServer", lab.appendingPathComponent("LabSchema.swift")))
    }

    /// The files that spell the `"gazerec"` extension's keys: its one codec, and the typed extension
    /// whose member names (`SessionExtension.Name`) the codec writes.
    static let codecFiles: Set<String> = ["SessionExtensionCodec.swift", "SessionExtension.swift"]

    @Test("the \"gazerec\" object is spelled only by its codec", arguments: allowed.keys.sorted())
    func gazerecKeyOnlyInCodec(_ module: String) throws {
        for file in try Self.swiftFiles(module) where !Self.codecFiles.contains(file.lastPathComponent) {
            for literal in Self.stringLiterals(try String(contentsOf: file, encoding: .utf8)) {
                #expect(literal != "gazerec", "\(module)/\(file.lastPathComponent) spells the \"gazerec\" key")
            }
        }
    }

    @Test("no function in Sources is longer than 60 lines")
    func shortFunctions() throws {
        var long: [String] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: Self.sources.path) {
            for file in (try? Self.swiftFiles(module)) ?? [] {
                for function in FunctionLengths.measure(try String(contentsOf: file, encoding: .utf8)) where function.lines > 60 {
                    long.append("\(module)/\(file.lastPathComponent):\(function.line) \(function.name) (\(function.lines) lines)")
                }
            }
        }
        #expect(long.isEmpty, "longer than 60 lines:\n\(long.joined(separator: "\n"))")
    }

    @Test("docs/Architecture.md draws the modules as Package.swift declares them")
    func moduleGraphCurrent() throws {
        let check = try Binary.runProcess("/usr/bin/env", ["python3", Fixtures.repositoryRoot.appendingPathComponent("Scripts/architecture.py").path,
                                                           "--check"])
        #expect(check.status == 0, "\(check.stderr)")
    }

    @Test("the function measure counts from the declaration to its closing brace, past braces in strings and comments")
    func functionMeasure() {
        let text = """
            struct A {
                func short() { print("}") }
                /// doc {
                func three(
                    x: () -> Void = {}
                ) -> Int {
                    let s = "{{"  // }
                    return x
                }
                init() {
                    let t = \"\"\"
                        }
                        \"\"\"
                    _ = t
                }
                public var computed: [Int: String] {
                    [:]
                }
                var stored: [Int: String] = [:]
                var observed: Int = 0 { didSet {} }
            }
            """
        #expect(FunctionLengths.measure(text).map { "\($0.name):\($0.line):\($0.lines)" }
                == ["short:2:1", "three:4:6", "init:10:6", "computed:16:3"])
        // A computed property over 60 lines is as long as a function over 60 lines.
        let long = "var body: String {\n" + String(repeating: "    \"x\" +\n", count: 60) + "    \"\"\n}\n"
        #expect(FunctionLengths.measure(long).map(\.lines) == [63])
    }

    @Test("the literal scanner finds flags in plain and multi-line strings, not in comments")
    func scanner() {
        let text = """
            // a comment naming --input
            let a = "use --input FILE"
            let b = \"\"\"
                give --model PATH
                \"\"\"
            """
        #expect(Self.stringLiterals(text).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                == ["use --input FILE", "give --model PATH"])
    }
}

/// The length of each function, initializer, subscript and computed property in a Swift source:
/// from the line of its declaration keyword to the line of its closing brace, braces inside strings
/// and comments skipped.
enum FunctionLengths {
    struct Function: Equatable {
        var name: String
        var line: Int
        var lines: Int
    }

    nonisolated(unsafe) static let declaration = try! Regex(#"^\s*(?:@[A-Za-z]+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|open|static|class|final|override|mutating|nonmutating|convenience|required|nonisolated|dynamic)(?:\([a-z]+\))?\s+)*(?:(func\s+([^\s(<]+)|(init)[?!]?|(deinit)|(subscript))\b|var\s+([A-Za-z_][A-Za-z0-9_]*)\s*:[^={]*\{)"#)

    /// The code of each line with comments and string contents blanked (braces in them do not count).
    static func code(_ text: String) -> [String] {
        var lines: [String] = []
        var inBlockComment = false
        var inMultilineString = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var out = ""
            var inString = false
            let characters = Array(raw)
            var index = 0
            while index < characters.count {
                let character = characters[index]
                let next = index + 1 < characters.count ? characters[index + 1] : " "
                let isTripleQuote = character == "\"" && next == "\"" && index + 2 < characters.count && characters[index + 2] == "\""
                if inBlockComment {
                    if character == "*" && next == "/" { inBlockComment = false; index += 1 }
                } else if inMultilineString {
                    if isTripleQuote { inMultilineString = false; index += 2 }
                } else if inString {
                    if character == "\\" { index += 1 } else if character == "\"" { inString = false }
                } else if isTripleQuote {
                    inMultilineString = true
                    index += 2
                } else if character == "\"" {
                    inString = true
                } else if character == "/" && next == "/" {
                    break
                } else if character == "/" && next == "*" {
                    inBlockComment = true
                    index += 1
                } else {
                    out.append(character)
                }
                index += 1
            }
            lines.append(out)
        }
        return lines
    }

    static func measure(_ text: String) -> [Function] {
        let lines = code(text)
        var functions: [Function] = []
        for (start, line) in lines.enumerated() {
            guard let match = line.firstMatch(of: declaration) else { continue }
            let name = [2, 3, 4, 5, 6].lazy.compactMap { match.output[$0].substring.map(String.init) }.first ?? "?"
            var depth = 0
            var parentheses = 0
            var opened = false
            var end: Int?
            var row = start
            scan: while row < lines.count {
                for character in lines[row] {
                    switch character {
                    case "(": parentheses += 1
                    case ")": parentheses -= 1
                    // Before the body, braces inside the parameters are default closures.
                    case "{" where opened || parentheses == 0: depth += 1; opened = true
                    case "}" where opened: depth -= 1; if depth == 0 { end = row; break scan }
                    default: break
                    }
                }
                // A declaration without a body (a protocol requirement) ends where its signature does.
                if !opened && parentheses == 0 {
                    let next = row + 1 < lines.count ? lines[row + 1].trimmingCharacters(in: .whitespaces) : ""
                    let continues = ["{", "->", "throws", "async", "where", "rethrows", ")"].contains { next.hasPrefix($0) }
                    if !continues && !lines[row].trimmingCharacters(in: .whitespaces).hasSuffix("->") { break }
                }
                row += 1
            }
            if let end { functions.append(Function(name: name, line: start + 1, lines: end - start + 1)) }
        }
        return functions
    }
}

/// Each use case a library call and each domain rule in one home (issue 40, items 1 and 2).
extension ArchitectureTests {
    /// The code (comments and strings blanked) of every Swift file of a module, by file name.
    static func moduleCode(_ module: String) throws -> [(name: String, code: String)] {
        try swiftFiles(module).map { ($0.lastPathComponent, FunctionLengths.code(try String(contentsOf: $0, encoding: .utf8)).joined(separator: "\n")) }
    }

    @Test("no subcommand uses another subcommand's type: what two commands share is a library call")
    func subcommandsStandAlone() throws {
        let folder = Self.sources.appendingPathComponent("gazerec/Subcommands")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted()
        let command = try Regex(#"struct\s+([A-Z][A-Za-z]*)\s*:\s*(?:Async)?ParsableCommand"#)
        var owner: [String: Set<String>] = [:]
        var texts: [String: String] = [:]
        for file in files {
            let text = FunctionLengths.code(try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)).joined(separator: "\n")
            texts[file] = text
            for match in text.matches(of: command) { owner[String(match.output[1].substring!), default: []].insert(file) }
        }
        #expect(owner.count > 10, "the subcommands were not found")
        for (file, text) in texts.sorted(by: { $0.key < $1.key }) {
            // A name the file declares itself (a nested `Calibrations.List`) is its own.
            for (name, homes) in owner where !homes.contains(file) {
                // `Start.x`, `Gazerec.Start.x`, `Start(`; not `Other.Start` nor `.start`.
                let use = try Regex(#"\b"# + name + #"(?:\.[A-Za-z]|\()"#)
                let uses = text.matches(of: use).filter { match in
                    let before = text[..<match.range.lowerBound]
                    return !before.hasSuffix(".") || before.hasSuffix("Gazerec.")
                }.count
                #expect(uses == 0, "Sources/gazerec/Subcommands/\(file) uses \(name) of \(homes.sorted())")
            }
        }
    }

    @Test("the CLI builds no vision pipeline and runs no frames: model, source and pipeline are set up, and frames run, by library calls")
    func framesRunInLibraries() throws {
        for (file, text) in try Self.moduleCode("gazerec") {
            #expect(!text.contains("FramePipeline(") && !text.contains(".processAll("),
                    "Sources/gazerec/\(file) sets up or drives the vision pipeline itself")
        }
    }

    @Test("the CLI builds no calibration procedure and no calibration record: calibrating and validating are library calls that save through the store")
    func calibrationRunsInLibraries() throws {
        for (file, text) in try Self.moduleCode("gazerec") {
            #expect(!text.contains("CalibrationProcedure(") && text.firstMatch(of: #/CalibrationRecord\(\s*(id|name):/#) == nil,
                    "Sources/gazerec/\(file) builds a calibration procedure or record itself")
            #expect(!text.contains("layoutTargets("), "Sources/gazerec/\(file) places calibration targets itself")
        }
    }

    @Test("only VisionInput sets up the vision pipeline in the Recorder: every use case there shares its model → source → pipeline set-up")
    func oneVisionSetUp() throws {
        var builders: [String] = []
        for (file, text) in try Self.moduleCode("Recorder") where text.contains("FramePipeline(") { builders.append(file) }
        #expect(builders == ["VisionInput.swift"], "FramePipeline is built in \(builders)")
    }

    @Test("the CLI assembles no figure: a session's plot is drawn by one library call a GazeKit program can make")
    func figuresAssembledInLibraries() throws {
        for (file, text) in try Self.moduleCode("gazerec") {
            for name in ["ScanPathPlot", "ExpressionBand", "SVGRasterizer", "GazeDensity"] {
                #expect(!text.contains(name), "Sources/gazerec/\(file) uses \(name): figure assembly belongs to a library")
            }
            #expect(!text.contains("import GazeFigures"), "Sources/gazerec/\(file) imports GazeFigures")
        }
    }

    @Test("the CLI reads no lab server into a station database and pairs no calibration summary with its document: the store and LabServer do")
    func serverSnapshotInLibraries() throws {
        for (file, text) in try Self.moduleCode("gazerec") {
            #expect(!text.contains("scratchFor"), "Sources/gazerec/\(file) makes a scratch database of a server itself")
            #expect(text.firstMatch(of: #/\.summary\b[^\n]*\.document\(\)/#) == nil,
                    "Sources/gazerec/\(file) pairs a calibration's summary with its document itself")
        }
    }

    @Test("median is defined once, in the lowest module every user of it may import")
    func oneMedian() throws {
        var homes: [String] = []
        for module in Array(Self.allowed.keys) + ["gazerec"] {
            for (file, text) in try Self.moduleCode(module) where text.contains("func median(") { homes.append("\(module)/\(file)") }
        }
        #expect(homes == ["GazeModel/Statistics.swift"], "func median is defined in \(homes)")
    }

    @Test("a session's fixation scale (given, else its calibration's, else 40 points per degree) is decided in GazeAnalysis only")
    func oneFixationScale() throws {
        for module in ["SessionStore", "SessionExport", "BIDSExport", "Recorder", "gazerec"] {
            for (file, text) in try Self.moduleCode(module) {
                #expect(!text.contains("assumedPointsPerDegree"), "Sources/\(module)/\(file) picks a fixation scale itself")
            }
        }
    }

    @Test("the focal length a run uses (given, recorded, the calibration's) is chosen by one library rule")
    func oneFocalLengthRule() throws {
        for (file, text) in try Self.moduleCode("gazerec") {
            #expect(text.firstMatch(of: #/focalLength\w*\s*\?\?/#) == nil, "Sources/gazerec/\(file) chooses a focal length itself")
        }
    }

    @Test("the calibration-quality thresholds live in GazeCalibration, not in the CLI")
    func qualityThresholdsInCalibration() throws {
        for (file, text) in try Self.moduleCode("gazerec") {
            #expect(text.firstMatch(of: #/accuracy\w*\s*[<>]=?\s*[0-9]|[<>]=?\s*0\.05\s*\*\s*diagonal/#) == nil,
                    "Sources/gazerec/\(file) judges a calibration's quality itself")
        }
    }

    @Test("exporting fixations is an option of the store's export, not a closure the CLI hands it")
    func exportFixationsIsAnOption() throws {
        for (file, text) in try Self.moduleCode("SessionStore") {
            #expect(text.firstMatch(of: #/->\s*ExportedMovement\)/#) == nil, "Sources/SessionStore/\(file) takes fixations from a closure")
        }
    }
}

/// The command line as ArgumentParser parses it (issue 40, item 3).
extension ArchitectureTests {
    static func cliSources() throws -> [(name: String, text: String)] {
        try swiftFiles("gazerec").map { ($0.lastPathComponent, try String(contentsOf: $0, encoding: .utf8)) }
    }

    @Test("the CLI passes nothing through its own environment: no setenv or putenv")
    func noEnvironmentAsChannel() throws {
        for (name, text) in try Self.cliSources() {
            #expect(!text.contains("setenv(") && !text.contains("putenv("), "\(name)")
        }
    }

    @Test("no function in the CLI rewrites an argument list before ArgumentParser reads it")
    func noArgumentRewriting() throws {
        let rewriter = try Regex(#"func \w+\(_ arguments: \[String\]\)[^{]*-> \[String\]"#)
        for (name, text) in try Self.cliSources() {
            #expect(!text.contains(rewriter), "\(name)")
        }
    }

    /// ArgumentParser reads `-1` after an option as an option, unless the option takes its value
    /// unconditionally: then the option's own check says what is wrong with it.
    @Test("every numeric option of the CLI takes a negative value as its value (parsing: .unconditional)")
    func numericOptionsTakeNegativeValues() throws {
        let option = try Regex(#"@Option\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*var (\w+): (Double|Int|Int32|Float)\b"#)
        for (name, text) in try Self.cliSources() {
            for match in text.matches(of: option) {
                let arguments = String(text[match.range]).components(separatedBy: "var ")[0]
                #expect(arguments.contains("parsing: .unconditional"), "\(name): \(String(text[match.range]).suffix(60))")
            }
        }
    }

    @Test("typos are looked for only once ArgumentParser refused the arguments, and option names come from its model, not from rendered help")
    func typosAfterArgumentParser() throws {
        let sources = try Self.cliSources()
        let main = try #require(sources.first { $0.name == "Gazerec.swift" }).text
        let parse = try #require(main.range(of: "Gazerec.parseAsRoot("))
        let typo = try #require(main.range(of: "ArgumentCheck.typo("))
        #expect(parse.lowerBound < typo.lowerBound)
        for (name, text) in sources {
            #expect(!text.contains("helpMessage("), "\(name)")
        }
    }
}

/// Tables, zlib and output files, each with one home (issue 40, item 6).
extension ArchitectureTests {
    static func librarySources() throws -> [(name: String, text: String)] {
        try allowed.keys.sorted().flatMap { module in
            try swiftFiles(module).map { ("\(module)/\($0.lastPathComponent)", try String(contentsOf: $0, encoding: .utf8)) }
        }
    }

    @Test("every table type that declares its Columns reads or writes through them, and no table reads a row by position")
    func tableColumnsUsed() throws {
        let used = try Regex(#"(^|[^A-Za-z])Columns\.[a-z]"#)
        let positional = try Regex(#"row\[[0-9]"#)
        for file in try Self.swiftFiles("SessionStore") where file.lastPathComponent.hasSuffix("Table.swift") {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(!text.contains(positional), "\(file.lastPathComponent) reads a row by position")
            guard text.contains("enum Columns") else { continue }
            #expect(text.contains(used), "\(file.lastPathComponent) declares Columns and never uses them")
        }
    }

    @Test("zlib is linked as the CZlib system library, never opened with dlopen")
    func zlibLinked() throws {
        for (name, text) in try Self.librarySources() {
            #expect(!text.contains("libz.so"), "\(name)")
            if text.contains("gzwrite") || text.contains("deflate") || text.contains("compress2") {
                #expect(text.contains("import CZlib"), "\(name) compresses without CZlib")
            }
        }
    }

    /// The recorder's status file, rewritten twice a second on the frame thread, goes through it too
    /// (without the fsync an output file gets).
    @Test("one atomic file writer: only AtomicFile renames a temporary sibling into place")
    func oneAtomicWriter() throws {
        let writers = try Self.librarySources().filter { $0.text.contains("rename(temporary") }.map(\.name)
        #expect(writers == ["JSONStream/AtomicFile.swift"], "\(writers)")
    }
}
