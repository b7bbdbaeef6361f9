import Foundation
import SwiftSyntax
import Testing
import TestSupport

/// The layering the modules promise (docs/Architecture.md), checked on the sources themselves as
/// the compiler's parser (SwiftSyntax) reads them: comments are never code, interpolations always are.
@Suite("Architecture")
struct ArchitectureTests {
    /// The tree the checks read: this repository, or the one `GAZEREC_CHECKED_TREE` names (to see
    /// what the checks report on another revision's sources, say).
    static let root: URL = ProcessInfo.processInfo.environment["GAZEREC_CHECKED_TREE"].map { URL(fileURLWithPath: $0) }
        ?? Fixtures.repositoryRoot
    static let sources = root.appendingPathComponent("Sources")

    /// The modules of ours each module may import.
    static let allowed: [String: Set<String>] = [
        "JSONStream": [],
        "GazeModel": [],
        "Channels": [],
        "ShapeRegression": [],
        "GazeCore": ["GazeModel"],
        "GazeAnalysis": ["GazeModel"],
        "GazeFigures": ["GazeModel", "GazeAnalysis", "CZlib"],
        "BIDSExport": ["GazeModel", "GazeAnalysis", "JSONStream", "CZlib", "ContentDigest"],
        "GazeCapture": ["GazeModel", "GazeCore", "Channels", "CVideoDecoder", "CVideoEncoder", "CV4L2"],
        "GazeVision": ["GazeModel", "GazeCore", "GazeCapture", "Channels", "CDlibShim", "ShapeRegression"],
        "SessionStore": ["GazeModel", "GazeAnalysis", "GazeCalibration", "JSONStream", "Channels"],
        "SessionExport": ["BIDSExport", "GazeAnalysis", "GazeModel", "JSONStream", "SessionStore"],
        "GazeCalibration": ["GazeModel", "GazeCore", "JSONStream"],
        "FaceExpression": ["GazeModel", "GazeCore", "CONNXRuntime"],
        "LabServer": ["ContentDigest", "CLibPQ", "GazeModel", "JSONStream", "SessionExport", "SessionStore"],
        "LabStreaming": ["CLSL", "GazeModel"],
        "Recorder": ["GazeModel", "GazeCore", "GazeAnalysis", "GazeCapture", "GazeVision", "GazeCalibration", "SessionExport", "SessionStore",
                     "JSONStream", "Channels", "FaceExpression", "LabStreaming", "StimulusPresenter"],
        "StimulusPresenter": ["ContentDigest", "GazeModel", "GazeCapture", "JSONStream"],
        "ContentDigest": ["CLibCrypto"],
        "SessionFigures": ["GazeModel", "GazeAnalysis", "GazeFigures", "SessionExport", "SessionStore"],
        "StimulusAnalysis": ["GazeModel", "GazeAnalysis", "JSONStream"],
        "StimulusStudy": ["GazeModel", "GazeAnalysis", "GazeCapture", "JSONStream", "SessionStore", "StimulusAnalysis", "ContentDigest"],
        // A server, like LabServer: not in GazeKit.
        "SessionReview": ["GazeModel", "GazeAnalysis", "GazeFigures", "JSONStream", "SessionFigures", "SessionStore", "StimulusAnalysis",
                          "StimulusStudy"],
        "GazeKit": ["GazeModel", "GazeCore", "GazeAnalysis", "GazeFigures", "BIDSExport", "GazeCapture", "GazeVision", "FaceExpression",
                    "GazeCalibration", "SessionStore", "SessionExport", "SessionFigures", "Recorder", "JSONStream", "LabStreaming", "ShapeRegression",
                    "StimulusAnalysis", "StimulusStudy", "StimulusPresenter"],
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

    /// A module's Swift files, parsed once per test run, by file name.
    static func parsed(_ module: String) throws -> [(name: String, source: SwiftSource)] {
        try swiftFiles(module).map { ($0.lastPathComponent, try SwiftSource(contentsOf: $0)) }
    }

    @Test("no module imports a module above it", arguments: allowed.keys.sorted())
    func imports(_ module: String) throws {
        var read = 0
        for (file, source) in try Self.parsed(module) {
            let names = source.imports.filter(Self.ours.contains)
            read += names.count
            for name in Self.forbiddenImports(module, names) {
                Issue.record("\(module)/\(file) imports \(name)")
            }
        }
        // A module allowed to import some of ours that seems to import none is a sign the reader missed its imports.
        #expect(read > 0 || Self.allowed[module]!.isEmpty, "no import of ours read in \(module)")
    }

    /// The modules a Swift source imports, in order: every form of import declaration (with
    /// attributes such as `@_exported`, `@preconcurrency` or `@testable`, an access level, under
    /// `#if`, or of one declaration: `import struct M.T` → M); none in comments or strings.
    static func importedModules(_ text: String) -> [String] { SwiftSource(text).imports }

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

    /// The string literals of a Swift source, comments left out (single-line and multi-line strings),
    /// each interpolation as written and each literal nested in one read as a literal too.
    static func stringLiterals(_ text: String) -> [String] { SwiftSource(text).stringLiterals }

    /// The subcommands of the CLI, from its help snapshots (`gazerec-calibrations-list.txt` → "calibrations").
    static let subcommands: Set<String> = {
        let folder = root.appendingPathComponent("Tests/GazerecCLITests/HelpSnapshots")
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
            for literal in Self.flagLiterals(try SwiftSource(contentsOf: file).stringLiterals) {
                Issue.record("\(module)/\(file.lastPathComponent): \"\(literal)\"")
            }
        }
    }

    /// The string literals of a source that name a flag (`--input`) or a subcommand (`gazerec start`).
    static func flagLiterals(_ text: String) -> [String] { flagLiterals(stringLiterals(text)) }

    static func flagLiterals(_ literals: [String]) -> [String] {
        let flag = try! Regex(#"(^|[\s('"`])--[a-z][a-z-]*"#)
        let command = try! Regex("gazerec (" + Self.subcommands.sorted().joined(separator: "|") + ")\\b")
        return literals.filter { $0.contains(flag) || $0.contains(command) }
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
            for literal in try SwiftSource(contentsOf: file).stringLiterals.filter(Self.isSQL) {
                Issue.record("\(module)/\(file.lastPathComponent) holds SQL: \"\(literal)\"")
            }
        }
    }

    /// The string literals of a source that hold SQL, in any letter case: a statement's opening
    /// words (`select … from`, `insert into`, `create table`, `pragma name`, `copy t (…) from`, …).
    static func sqlLiterals(_ text: String) -> [String] { stringLiterals(text).filter(isSQL) }

    /// Whether a literal's text holds SQL (see `sqlLiterals`).
    static func isSQL(_ literal: String) -> Bool { literal.contains(sqlStatement) }

    nonisolated(unsafe) static let sqlStatement = try! Regex(#"\b(SELECT\b[^.;!?]*?\bFROM\s+[\w"]|INSERT\s+(OR\s+\w+\s+)?INTO|DELETE\s+FROM|UPDATE\s+[\w"]+\s+SET|CREATE\s+(TEMP\s+|TEMPORARY\s+)?(TABLE|(UNIQUE\s+)?INDEX|TRIGGER|VIEW|ROLE|DATABASE|SCHEMA)|DROP\s+(TABLE|INDEX|TRIGGER|VIEW|ROLE|DATABASE|SCHEMA)|ALTER\s+(TABLE|ROLE|DATABASE)|PRAGMA\s+\w+|GRANT\s+\w+|REVOKE\s+\w+|COPY\s+\w+\s*(\(|FROM\b|TO\b))"#)
        .ignoresCase()

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
            for literal in try SwiftSource(contentsOf: file).stringLiterals {
                #expect(literal != "gazerec", "\(module)/\(file.lastPathComponent) spells the \"gazerec\" key")
            }
        }
    }

    @Test("no function in Sources is longer than 60 lines")
    func shortFunctions() throws {
        var long: [String] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: Self.sources.path) {
            for file in (try? Self.swiftFiles(module)) ?? [] {
                for function in FunctionLengths.measure(try SwiftSource(contentsOf: file)) where function.lines > 60 {
                    long.append("\(module)/\(file.lastPathComponent):\(function.line) \(function.name) (\(function.lines) lines)")
                }
            }
        }
        #expect(long.isEmpty, "longer than 60 lines:\n\(long.joined(separator: "\n"))")
    }

    @Test("docs/Architecture.md draws the modules as Package.swift declares them")
    func moduleGraphCurrent() throws {
        let check = try Binary.runProcess("/usr/bin/env", ["python3", Self.root.appendingPathComponent("Scripts/architecture.py").path,
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

/// Each use case a library call and each domain rule in one home (issue 40, items 1 and 2).
extension ArchitectureTests {
    /// The parsed Swift files of a module, by file name.
    static func moduleCode(_ module: String) throws -> [(name: String, code: SwiftSource)] {
        try parsed(module).map { ($0.name, $0.source) }
    }

    @Test("the CLI builds no vision pipeline and runs no frames: model, source and pipeline are set up, and frames run, by library calls")
    func framesRunInLibraries() throws {
        for (file, code) in try Self.moduleCode("gazerec") {
            #expect(!code.calls.contains { $0.name == "FramePipeline" || $0.name == "processAll" },
                    "Sources/gazerec/\(file) sets up or drives the vision pipeline itself")
        }
    }

    @Test("the CLI builds no calibration procedure and no calibration record: calibrating and validating are library calls that save through the store")
    func calibrationRunsInLibraries() throws {
        for (file, code) in try Self.moduleCode("gazerec") {
            let builds = code.calls.contains { call in
                call.name == "CalibrationProcedure" || (call.name == "CalibrationRecord" && ["id", "name"].contains(call.labels.first ?? nil))
            }
            #expect(!builds, "Sources/gazerec/\(file) builds a calibration procedure or record itself")
            #expect(!code.calls.contains { $0.name == "layoutTargets" }, "Sources/gazerec/\(file) places calibration targets itself")
        }
    }

    @Test("only VisionInput sets up the vision pipeline in the Recorder: every use case there shares its model → source → pipeline set-up")
    func oneVisionSetUp() throws {
        var builders: [String] = []
        for (file, code) in try Self.moduleCode("Recorder") where code.calls.contains(where: { $0.name == "FramePipeline" }) {
            builders.append(file)
        }
        #expect(builders == ["VisionInput.swift"], "FramePipeline is built in \(builders)")
    }

    @Test("the CLI assembles no figure: a session's plot is drawn by one library call a GazeKit program can make")
    func figuresAssembledInLibraries() throws {
        for (file, code) in try Self.moduleCode("gazerec") {
            let names = code.referencedNames
            for name in ["ScanPathPlot", "ExpressionBand", "SVGRasterizer", "GazeDensity"] {
                #expect(!names.contains(name), "Sources/gazerec/\(file) uses \(name): figure assembly belongs to a library")
            }
            #expect(!code.imports.contains("GazeFigures"), "Sources/gazerec/\(file) imports GazeFigures")
        }
    }

    @Test("the CLI reads no lab server into a station database and pairs no calibration summary with its document: the store and LabServer do")
    func serverSnapshotInLibraries() throws {
        for (file, code) in try Self.moduleCode("gazerec") {
            #expect(!code.referencedNames.contains("scratchFor"), "Sources/gazerec/\(file) makes a scratch database of a server itself")
            #expect(Self.summaryWithDocument(code).isEmpty, "Sources/gazerec/\(file) pairs a calibration's summary with its document itself")
        }
    }

    /// Lines of statements that take a `.summary` and call `.document()` together.
    static func summaryWithDocument(_ code: SwiftSource) -> [Int] {
        code.calls.filter { $0.name == "document" && $0.labels.isEmpty }.compactMap { call in
            var statement = Syntax(call.node)
            while let parent = statement.parent, !parent.is(CodeBlockItemSyntax.self) { statement = parent }
            let members = statement.parent.map { Array($0.tokens(viewMode: .sourceAccurate)) } ?? []
            return members.contains { $0.text == "summary" } ? call.line : nil
        }
    }

    @Test("median is defined once, in the lowest module every user of it may import")
    func oneMedian() throws {
        var homes: [String] = []
        for module in Array(Self.allowed.keys) + ["gazerec"] {
            for (file, code) in try Self.moduleCode(module) where !Self.medianDefinitions(code).isEmpty { homes.append("\(module)/\(file)") }
        }
        #expect(homes == ["GazeModel/Statistics.swift"], "median is defined in \(homes)")
    }

    /// Lines where a source defines a median: a function (generic, static, in an extension, any
    /// labels) or a member property or closure named `median` (a local value of that name is not one).
    static func medianDefinitions(_ code: SwiftSource) -> [Int] {
        let functions = code.collect(FunctionDeclSyntax.self).filter { $0.name.text == "median" }
            .map { code.line($0.positionAfterSkippingLeadingTrivia) }
        let properties = code.collect(VariableDeclSyntax.self).filter { variable in
            variable.parent?.is(MemberBlockItemSyntax.self) == true || variable.parent?.parent?.parent?.is(SourceFileSyntax.self) == true
        }.filter { variable in
            variable.bindings.contains { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "median" }
        }.map { code.line($0.positionAfterSkippingLeadingTrivia) }
        return functions + properties
    }

    @Test("the median check finds a median by any declaration form, not a local value")
    func medianReader() {
        #expect(Self.medianDefinitions(SwiftSource("func median(_ v: [Double]) -> Double { 0 }")).count == 1)
        #expect(Self.medianDefinitions(SwiftSource("extension Array { static func median<T>(_ v: [T]) -> T? { nil } }")).count == 1)
        #expect(Self.medianDefinitions(SwiftSource("enum S { static let median: ([Double]) -> Double = { _ in 0 } }")).count == 1)
        #expect(Self.medianDefinitions(SwiftSource("func f() { let median = 2; _ = median }")).isEmpty)
    }

    @Test("a session's fixation scale (given, else its calibration's, else 40 points per degree) is decided in GazeAnalysis only")
    func oneFixationScale() throws {
        for module in ["SessionStore", "SessionExport", "BIDSExport", "Recorder", "gazerec"] {
            for (file, code) in try Self.moduleCode(module) {
                #expect(!code.referencedNames.contains("assumedPointsPerDegree"), "Sources/\(module)/\(file) picks a fixation scale itself")
            }
        }
    }

    /// The operators of a source's expressions with the operands beside them (the parser leaves
    /// `a ?? b < 3` a flat sequence: a, ??, b, <, 3).
    static func operations(_ code: SwiftSource) -> [(left: ExprSyntax?, op: String, right: [ExprSyntax])] {
        code.collect(SequenceExprSyntax.self).flatMap { sequence -> [(left: ExprSyntax?, op: String, right: [ExprSyntax])] in
            let elements = Array(sequence.elements)
            return elements.indices.compactMap { index in
                guard let op = elements[index].as(BinaryOperatorExprSyntax.self)?.operator.text else { return nil }
                return (index > 0 ? elements[index - 1] : nil, op, Array(elements[(index + 1)...]))
            }
        }
    }

    static func lastName(_ expression: ExprSyntax?) -> String { expression?.lastToken(viewMode: .sourceAccurate)?.text ?? "" }

    /// Lines where a focal length is chosen with `??`.
    static func focalLengthChoices(_ code: SwiftSource) -> [String] {
        operations(code).filter { $0.op == "??" && lastName($0.left).hasPrefix("focalLength") }.map { "\($0.left!.trimmedDescription) ??" }
    }

    @Test("the focal length a run uses (given, recorded, the calibration's) is chosen by one library rule")
    func oneFocalLengthRule() throws {
        for (file, code) in try Self.moduleCode("gazerec") {
            #expect(Self.focalLengthChoices(code).isEmpty, "Sources/gazerec/\(file) chooses a focal length itself")
        }
    }

    /// Comparisons of an accuracy with a number, or of anything with a share of a diagonal.
    static func qualityJudgements(_ code: SwiftSource) -> [String] {
        let comparisons = Set(["<", ">", "<=", ">="])
        return operations(code).filter { operation in
            guard comparisons.contains(operation.op) else { return false }
            let right = operation.right.first
            let number = { (expression: ExprSyntax?) in expression?.is(FloatLiteralExprSyntax.self) == true || expression?.is(IntegerLiteralExprSyntax.self) == true }
            let accuracyAgainstNumber = (lastName(operation.left).hasPrefix("accuracy") && number(right))
                || (number(operation.left) && lastName(right).hasPrefix("accuracy"))
            let shareOfDiagonal = operation.right.count >= 3 && operation.right[0].trimmedDescription == "0.05"
                && operation.right[2].trimmedDescription.hasPrefix("diagonal")
            return accuracyAgainstNumber || shareOfDiagonal
        }.map { "\(lastName($0.left)) \($0.op)" }
    }

    @Test("the calibration-quality thresholds live in GazeCalibration, not in the CLI")
    func qualityThresholdsInCalibration() throws {
        for (file, code) in try Self.moduleCode("gazerec") {
            #expect(Self.qualityJudgements(code).isEmpty, "Sources/gazerec/\(file) judges a calibration's quality itself")
        }
    }

    @Test("the rule checks find a rule written again in constructed code, interpolations included")
    func ruleReaders() {
        #expect(Self.focalLengthChoices(SwiftSource("let f = options.focalLengthPixels ?? recorded")).count == 1)
        #expect(Self.focalLengthChoices(SwiftSource(#"print("\(a?.focalLength ?? 600)")"#)).count == 1)
        #expect(Self.qualityJudgements(SwiftSource("if accuracyDegrees <= 1.5 { }")).count == 1)
        #expect(Self.qualityJudgements(SwiftSource("let bad = 2 < run.accuracyPoints")).count == 1)
        #expect(Self.qualityJudgements(SwiftSource("let ok = error < 0.05 * diagonal")).count == 1)
        #expect(Self.qualityJudgements(SwiftSource("let ok = count < 5")).isEmpty)
        #expect(Self.summaryWithDocument(SwiftSource("let pair = (record.summary, try record.document())")).count == 1)
        #expect(Self.exportedMovementClosures(SwiftSource("func f(movement: (Session) -> ExportedMovement) {}")).count == 1)
    }

    /// Function types (closures handed in) that produce an `ExportedMovement`.
    static func exportedMovementClosures(_ code: SwiftSource) -> [Int] {
        code.collect(FunctionTypeSyntax.self).filter { $0.returnClause.type.trimmedDescription.contains("ExportedMovement") }
            .map { code.line($0.positionAfterSkippingLeadingTrivia) }
    }

    @Test("exporting fixations is an option of the store's export, not a closure the CLI hands it")
    func exportFixationsIsAnOption() throws {
        for (file, code) in try Self.moduleCode("SessionStore") {
            #expect(Self.exportedMovementClosures(code).isEmpty, "Sources/SessionStore/\(file) takes fixations from a closure")
        }
    }
}

/// The command line as ArgumentParser parses it (issue 40, item 3).
extension ArchitectureTests {
    static func cliSources() throws -> [(name: String, code: SwiftSource)] { try parsed("gazerec").map { ($0.name, $0.source) } }

    @Test("the CLI passes nothing through its own environment: no setenv or putenv")
    func noEnvironmentAsChannel() throws {
        for (name, code) in try Self.cliSources() {
            #expect(code.referencedNames.isDisjoint(with: ["setenv", "putenv"]), "\(name)")
        }
    }

    /// Functions that take an argument list and return one (`func f(_ arguments: [String]) -> [String]`).
    static func argumentRewriters(_ code: SwiftSource) -> [String] {
        code.collect(FunctionDeclSyntax.self).filter { function in
            let parameters = function.signature.parameterClause.parameters
            let parameter = parameters.first
            return parameters.count == 1 && (parameter?.secondName ?? parameter?.firstName)?.text == "arguments"
                && parameter?.type.trimmedDescription == "[String]"
                && function.signature.returnClause?.type.trimmedDescription == "[String]"
        }.map(\.name.text)
    }

    @Test("no function in the CLI rewrites an argument list before ArgumentParser reads it")
    func noArgumentRewriting() throws {
        #expect(Self.argumentRewriters(SwiftSource("func clean(_ arguments: [String]) throws -> [String] { arguments }")) == ["clean"])
        for (name, code) in try Self.cliSources() {
            #expect(Self.argumentRewriters(code).isEmpty, "\(name)")
        }
    }

    /// `@Option` properties of a numeric type (optional or not) declared without `parsing: .unconditional`.
    static func numericOptionsWithoutUnconditional(_ code: SwiftSource) -> [String] {
        let numeric: Set<String> = ["Double", "Int", "Int32", "Float"]
        return code.collect(VariableDeclSyntax.self).compactMap { variable in
            guard let option = variable.attributes.compactMap({ $0.as(AttributeSyntax.self) })
                    .first(where: { $0.attributeName.trimmedDescription == "Option" }),
                  let binding = variable.bindings.first,
                  let type = binding.typeAnnotation?.type.trimmedDescription.replacingOccurrences(of: "?", with: ""),
                  numeric.contains(type) else { return nil }
            let unconditional = option.arguments?.as(LabeledExprListSyntax.self)?.contains {
                $0.label?.text == "parsing" && $0.expression.trimmedDescription == ".unconditional"
            } ?? false
            return unconditional ? nil : binding.pattern.trimmedDescription
        }
    }

    /// ArgumentParser reads `-1` after an option as an option, unless the option takes its value
    /// unconditionally: then the option's own check says what is wrong with it.
    @Test("every numeric option of the CLI takes a negative value as its value (parsing: .unconditional)")
    func numericOptionsTakeNegativeValues() throws {
        #expect(Self.numericOptionsWithoutUnconditional(SwiftSource("""
            struct O { @Option(name: .long, help: "h") var seconds: Double?
                       @Option(parsing: .unconditional) var frames: Int = 0 }
            """)) == ["seconds"])
        for (name, code) in try Self.cliSources() {
            #expect(Self.numericOptionsWithoutUnconditional(code).isEmpty, "\(name)")
        }
    }

    @Test("typos are looked for only once ArgumentParser refused the arguments, and option names come from its model, not from rendered help")
    func typosAfterArgumentParser() throws {
        let sources = try Self.cliSources()
        let main = try #require(sources.first { $0.name == "Gazerec.swift" }).code
        let parse = try #require(main.calls.first { $0.name == "parseAsRoot" && $0.node.calledExpression.trimmedDescription == "Gazerec.parseAsRoot" })
        let typo = try #require(main.calls.first { $0.node.calledExpression.trimmedDescription == "ArgumentCheck.typo" })
        #expect(parse.node.position < typo.node.position)
        for (name, code) in sources {
            #expect(!code.referencedNames.contains("helpMessage"), "\(name)")
        }
    }
}

/// Tables, zlib and output files, each with one home (issue 40, item 6).
extension ArchitectureTests {
    static func librarySources() throws -> [(name: String, code: SwiftSource)] {
        try allowed.keys.sorted().flatMap { module in try parsed(module).map { ("\(module)/\($0.name)", $0.source) } }
    }

    /// `row[0]`: a row read by position.
    static func positionalReads(_ code: SwiftSource) -> [Int] {
        code.collect(SubscriptCallExprSyntax.self).filter { subscriptCall in
            subscriptCall.calledExpression.trimmedDescription == "row" && subscriptCall.arguments.first?.expression.is(IntegerLiteralExprSyntax.self) == true
        }.map { code.line($0.positionAfterSkippingLeadingTrivia) }
    }

    /// The columns a table type's `enum Columns` declares.
    static func declaredColumns(_ code: SwiftSource) -> [String]? {
        let enums = code.collect(EnumDeclSyntax.self).filter { $0.name.text == "Columns" }
        guard !enums.isEmpty else { return nil }
        return enums.flatMap { columns in
            columns.memberBlock.members.compactMap { $0.decl.as(EnumCaseDeclSyntax.self) }.flatMap { $0.elements.map(\.name.text) }
        }
    }

    /// The column names a table type spells in its SQL text instead of taking them from its Columns
    /// (in the literal's plain text; an interpolation of the Columns is what is wanted).
    static func spelledColumns(_ code: SwiftSource) -> [String] {
        guard let columns = declaredColumns(code) else { return [] }
        let sql = code.collect(StringLiteralExprSyntax.self).map { SwiftSource.literalText($0, interpolations: false) }
            .filter(isSQL)
        return columns.filter { column in
            let word = try! Regex("(^|[^A-Za-z0-9_])" + column + "(?![A-Za-z0-9_])")
            return sql.contains { $0.contains(word) }
        }
    }

    @Test("every table type that declares its Columns reads or writes through them, spells none of them in its SQL, and reads no row by position")
    func tableColumnsUsed() throws {
        for file in try Self.swiftFiles("SessionStore") where file.lastPathComponent.hasSuffix("Table.swift") {
            let code = try SwiftSource(contentsOf: file)
            #expect(Self.positionalReads(code).isEmpty, "\(file.lastPathComponent) reads a row by position")
            guard Self.declaredColumns(code) != nil else { continue }
            #expect(code.references.contains { $0.path.count >= 2 && $0.path[$0.path.count - 2] == "Columns" },
                    "\(file.lastPathComponent) declares Columns and never uses them")
            let spelled = Self.spelledColumns(code)
            #expect(spelled.isEmpty, "\(file.lastPathComponent) spells columns in SQL text instead of using its Columns: \(spelled)")
        }
    }

    @Test("the Columns check finds a column spelled in SQL, and not one taken from the Columns")
    func columnsReader() {
        let spelled = SwiftSource("""
            enum T { enum Columns: String { case sessionRowID, seq, label }
              static let a = "SELECT label FROM marker WHERE \\(Columns.sessionRowID.rawValue) = ? ORDER BY seq"
              static let b = "INSERT INTO marker (\\(Columns.allCases.names)) VALUES (?)"
              static let c = "the label of a marker" }
            """)
        #expect(Self.spelledColumns(spelled) == ["seq", "label"])
        #expect(Self.positionalReads(SwiftSource("let t: Double = row[0]")).count == 1)
    }

    @Test("zlib is linked as the CZlib system library, never opened with dlopen")
    func zlibLinked() throws {
        for (name, code) in try Self.librarySources() {
            #expect(!code.stringLiterals.contains { $0.contains("libz.so") }, "\(name)")
            if code.referencedNames.contains(where: { $0.hasPrefix("gzwrite") || $0.hasPrefix("deflate") || $0 == "compress2" }) {
                #expect(code.imports.contains("CZlib"), "\(name) compresses without CZlib")
            }
        }
    }

    /// The recorder's status file, rewritten twice a second on the frame thread, goes through it too
    /// (without the fsync an output file gets).
    @Test("one atomic file writer: only AtomicFile renames a temporary sibling into place")
    func oneAtomicWriter() throws {
        let writers = try Self.librarySources().filter { source in
            source.code.calls.contains { call in
                call.name == "rename" && call.node.arguments.first?.expression.trimmedDescription.hasPrefix("temporary") == true
            }
        }.map(\.name)
        #expect(writers == ["JSONStream/AtomicFile.swift"], "\(writers)")
    }
}
