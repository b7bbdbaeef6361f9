import Foundation
import SwiftSyntax
import Testing
import TestSupport

/// What crosses a module's or a subcommand's edge, as the parser reads it: imports against the
/// dependencies `Package.swift` declares, names one subcommand file borrows from another, and the
/// modules GazeKit's public API names (issue 44, items 2 and 4).
extension ArchitectureTests {
    nonisolated(unsafe) static let manifest = try! PackageManifest(contentsOf: root.appendingPathComponent("Package.swift"))

    /// The Swift targets of the manifest (system libraries and C targets hold no Swift).
    static let swiftTargets: [String] = manifest.targets.filter { target in
        target.kind != "systemLibrary" && !(swiftFiles(at: target.path).isEmpty)
    }.map(\.name)

    static func swiftFiles(at path: String) -> [URL] {
        let folder = root.appendingPathComponent(path)
        let names = (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".swift") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// The imports of `imports` (module names) that name a module this package builds (a target of
    /// ours or a product it takes) which `target` does not declare as a direct dependency. SwiftPM's
    /// own check accepts any module reachable through the declared ones.
    static func undeclaredImports(_ target: PackageManifest.Target, _ imports: [String], in manifest: PackageManifest) -> [String] {
        let declared = Set(target.dependencies.map { $0.replacingOccurrences(of: "-", with: "_") })
        return imports.filter { manifest.packageModules.contains($0) && !declared.contains($0) && $0 != target.module }
    }

    @Test("every module imports only modules Package.swift declares as its direct dependencies", arguments: swiftTargets)
    func importsDeclared(_ name: String) throws {
        let target = try #require(Self.manifest.target(name))
        var read = 0
        for file in Self.swiftFiles(at: target.path) {
            let imports = try SwiftSource(contentsOf: file).imports
            read += imports.count
            for module in Self.undeclaredImports(target, imports, in: Self.manifest) {
                let relative = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
                Issue.record("\(relative) imports \(module), which Package.swift does not declare for \(name)")
            }
        }
        #expect(read > 0 || target.dependencies.isEmpty, "no import read in \(name)")
    }

    @Test("the manifest reader sees each target's direct dependencies, and an import beyond them fails the check")
    func manifestReader() throws {
        let manifest = PackageManifest("""
            let package = Package(name: "p", dependencies: [.package(url: "u", from: "1.0.0")], targets: [
                .target(name: "Channels"),
                .target(name: "Capture", dependencies: ["Channels"]),
                .executableTarget(name: "tool", dependencies: ["Capture", .product(name: "ArgumentParser", package: "u")],
                                  path: "Sources/Tool"),
                .testTarget(name: "ToolTests", dependencies: [.target(name: "tool")]),
            ])
            """)
        #expect(manifest.targets.map(\.name) == ["Channels", "Capture", "tool", "ToolTests"])
        let tool = try #require(manifest.target("tool"))
        #expect(tool.dependencies == ["Capture", "ArgumentParser"] && tool.path == "Sources/Tool")
        #expect(manifest.target("ToolTests")?.dependencies == ["tool"])
        let imports = SwiftSource("import ArgumentParser\nimport Channels\nimport Foundation\nimport Capture\n").imports
        #expect(Self.undeclaredImports(tool, imports, in: manifest) == ["Channels"])
        // The real manifest: the CLI declares its libraries, and the reader finds them.
        #expect(Self.manifest.target("gazerec")?.dependencies.contains("ArgumentParser") == true)
        #expect(Self.swiftTargets.contains("GazeKit") && !Self.swiftTargets.contains("CZlib"))
    }
}

/// Each subcommand stands alone: what two commands share is a library call, so no file of the CLI
/// uses a type or a helper member declared in a subcommand's file.
extension ArchitectureTests {
    /// A use, from one file of the CLI, of a type or member declared in a subcommand's file.
    struct BorrowedName: Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        /// The type's qualified name, or `Type.member` for a member declared in an extension.
        var symbol: String
        var home: String

        var description: String { "Sources/gazerec/\(file):\(line) uses \(symbol), declared in \(home)" }
    }

    /// The CLI's files (path under Sources/gazerec) and whether each is a subcommand's.
    static func cliFiles() throws -> [(path: String, source: SwiftSource)] {
        let folder = sources.appendingPathComponent("gazerec")
        return try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted().map { path in
            (path, try SwiftSource(contentsOf: folder.appendingPathComponent(path)))
        }
    }

    /// Every use, in `files`, of a type declared in a subcommand's file (`Subcommands/…`), or of a
    /// member an extension there declares, from any other file: qualified (`Gazerec.Start.x`), bare
    /// (inside the scope that finds it), in a type annotation, an extension or an interpolation.
    /// Naming a command in a `subcommands:` list is how ArgumentParser builds the tree, not a use.
    static func borrowedNames(_ files: [(path: String, source: SwiftSource)], elsewhere: Set<String> = []) -> [BorrowedName] {
        var typeHome: [String: String] = [:]
        var members: [(type: String, name: String, home: String)] = []
        // Names a reference may start from: declared types, and types known here only by their extensions.
        var known = Set<String>()
        for (path, source) in files {
            for declaration in source.typeDeclarations { typeHome[declaration.qualifiedName] = path }
            for extended in source.collect(ExtensionDeclSyntax.self).map(\.extendedType.trimmedDescription) {
                let parts = extended.split(separator: ".")
                for end in parts.indices { known.insert(parts[...end].joined(separator: ".")) }
            }
        }
        known.formUnion(typeHome.keys)
        for (path, source) in files where path.hasPrefix("Subcommands/") {
            for member in source.extensionMembers where typeHome[member.extendedType] != path {
                members.append((member.extendedType, member.name, path))
            }
        }
        // A member name an opaque base (`value.name`) may mean: one declared nowhere but in its extension.
        var declaredIn: [String: Set<String>] = [:]
        for (path, source) in files { for name in source.declaredNames { declaredIn[name, default: []].insert(path) } }
        var found: [BorrowedName] = []
        for (path, source) in files {
            for reference in source.references where !reference.inSubcommandList {
                let (type, rest) = resolve(reference, known)
                if let type, rest.isEmpty, let home = typeHome[type], home != path, home.hasPrefix("Subcommands/") {
                    found.append(BorrowedName(file: path, line: reference.line, symbol: type, home: home))
                    continue
                }
                guard let name = reference.path.last else { continue }
                for member in members where member.name == name && member.home != path {
                    let scoped = reference.path.count == 1 && reference.scopes.contains { $0 == member.type || $0.hasPrefix(member.type + ".") }
                    let qualified = type == member.type && rest == [name]
                    // A base the source does not say the type of: `value.name`, or a chain no known type starts.
                    let unknownBase = reference.hasOpaqueBase || (reference.path.count > 1 && type == nil)
                    let opaque = unknownBase && declaredIn[name] == [member.home] && !elsewhere.contains(name)
                    if scoped || qualified || opaque {
                        found.append(BorrowedName(file: path, line: reference.line, symbol: "\(member.type).\(name)", home: member.home))
                    }
                }
            }
        }
        return found
    }

    /// The type a reference's leading components name (looked up from its innermost scope out),
    /// and the components after it.
    static func resolve(_ reference: SwiftSource.Reference, _ types: Set<String>) -> (String?, [String]) {
        guard let first = reference.path.first else { return (nil, []) }
        guard var type = (reference.scopes + [""]).lazy.map({ $0.isEmpty ? first : "\($0).\(first)" }).first(where: types.contains)
        else { return (nil, reference.path) }
        var rest = Array(reference.path.dropFirst())
        while let next = rest.first, types.contains("\(type).\(next)") {
            type += ".\(next)"
            rest.removeFirst()
        }
        return (type, rest)
    }

    @Test("no file of the CLI uses a type or helper declared in a subcommand's file: what two commands share is a library call")
    func subcommandsStandAlone() throws {
        let files = try Self.cliFiles()
        #expect(files.filter { $0.path.hasPrefix("Subcommands/") }.flatMap(\.source.typeDeclarations).count > 20,
                "the subcommands' types were not found")
        var elsewhere = Set<String>()
        for module in Self.allowed.keys { for (_, source) in try Self.parsed(module) { elsewhere.formUnion(source.declaredNames) } }
        let found = Self.borrowedNames(files, elsewhere: elsewhere)
        #expect(found.isEmpty, "\n\(found.map(\.description).joined(separator: "\n"))")
    }

    @Test("the subcommand check finds a borrowed name in an interpolation, a nested or helper type, an extension member and a type annotation")
    func subcommandReader() {
        let start = SwiftSource("""
            extension Gazerec {
                struct Start: ParsableCommand {
                    static func accuracyText(_ r: Int) -> String { "" }
                    struct Plan { }
                }
                static func screenSize() -> Int { 0 }
            }
            struct MillimetreSize { }
            extension CalibrationSummary { var label: String { "" } }
            """)
        let other = SwiftSource("""
            extension Gazerec {
                struct Recalibrate: ParsableCommand {
                    static let configuration = CommandConfiguration(subcommands: [Start.self])
                    func run() {
                        print("done\\(Gazerec.Start.accuracyText(1))")
                        let plan: Start.Plan? = nil
                        let size = screenSize()
                        let text = summary.label
                        _ = MillimetreSize()
                    }
                }
            }
            """)
        let found = Self.borrowedNames([("Subcommands/Start.swift", start), ("Support/Other.swift", other)])
        #expect(Set(found.map(\.symbol)) == ["Gazerec.Start", "Gazerec.Start.Plan", "Gazerec.screenSize", "CalibrationSummary.label",
                                             "MillimetreSize"], "\(found)")
        #expect(found.filter { $0.symbol == "Gazerec.Start" }.map(\.line) == [5, 6], "the interpolation's and the annotation's")
        #expect(found.allSatisfy { $0.file == "Support/Other.swift" && $0.home == "Subcommands/Start.swift" })
        #expect(Self.borrowedNames([("Subcommands/Start.swift", start), ("Support/Other.swift", other)], elsewhere: ["label"])
                    .map(\.symbol).contains("CalibrationSummary.label") == false)
    }
}

/// GazeKit is one import: every module its re-exported modules' public API names is re-exported too.
extension ArchitectureTests {
    /// The type names a public declaration's signature names (parameters, results, property types,
    /// inherited types, associated values), not its body.
    static func publicSignatureTypes(_ source: SwiftSource) -> [(name: String, line: Int)] {
        var found: [(String, Int)] = []
        for node in source.nodes {
            guard let declaration = node.asProtocol(WithModifiersSyntax.self),
                  declaration.modifiers.contains(where: { ["public", "open"].contains($0.name.text) }) else { continue }
            let signatureParts: [Syntax] = signatureNodes(node)
            for part in signatureParts {
                for type in part.preOrder.compactMap({ $0.as(IdentifierTypeSyntax.self) }) {
                    found.append((type.name.text, source.line(type.positionAfterSkippingLeadingTrivia)))
                }
            }
        }
        return found
    }

    static func signatureNodes(_ node: Syntax) -> [Syntax] {
        if let function = node.as(FunctionDeclSyntax.self) { return [Syntax(function.signature)] }
        if let initializer = node.as(InitializerDeclSyntax.self) { return [Syntax(initializer.signature)] }
        if let subscriptDeclaration = node.as(SubscriptDeclSyntax.self) {
            return [Syntax(subscriptDeclaration.parameterClause), Syntax(subscriptDeclaration.returnClause)]
        }
        if let variable = node.as(VariableDeclSyntax.self) { return variable.bindings.compactMap { $0.typeAnnotation.map(Syntax.init) } }
        if let alias = node.as(TypeAliasDeclSyntax.self) { return [Syntax(alias.initializer)] }
        if let enumDeclaration = node.as(EnumDeclSyntax.self) {
            return enumDeclaration.memberBlock.members.compactMap { $0.decl.as(EnumCaseDeclSyntax.self) }.map(Syntax.init)
        }
        if let type = node.asProtocol(DeclGroupSyntax.self), let inherited = type.inheritanceClause { return [Syntax(inherited)] }
        return []
    }

    /// Public types (any nesting) by simple name, with the modules declaring them.
    static func publicTypeHomes(_ modules: [String]) throws -> [String: Set<String>] {
        var homes: [String: Set<String>] = [:]
        for module in modules {
            for (_, source) in try parsed(module) {
                for node in source.nodes {
                    guard let name = SwiftSource.declaredTypeName(node), let declaration = node.asProtocol(WithModifiersSyntax.self),
                          declaration.modifiers.contains(where: { ["public", "open"].contains($0.name.text) }) else { continue }
                    homes[name, default: []].insert(module)
                }
            }
        }
        return homes
    }

    /// Where a re-exported module's public API names a type of a module of ours that GazeKit does not re-export.
    static func unexportedAPITypes(exported: Set<String>, homes: [String: Set<String>],
                                   modules: [(module: String, file: String, source: SwiftSource)]) -> [String] {
        modules.flatMap { item in
            publicSignatureTypes(item.source).compactMap { type -> String? in
                guard let declaring = homes[type.name], !declaring.contains(item.module), declaring.isDisjoint(with: exported) else { return nil }
                return "\(item.module)/\(item.file):\(type.line) names \(type.name) of \(declaring.sorted().joined(separator: ", "))"
            }
        }
    }

    @Test("GazeKit re-exports every module of ours its re-exported modules' public API names")
    func gazeKitExportsWhatItsAPINames() throws {
        let exported = Set(try Self.parsed("GazeKit").flatMap(\.source.exportedImports))
        #expect(exported.contains("Recorder"), "GazeKit's re-exports were not read")
        let homes = try Self.publicTypeHomes(Self.allowed.keys.sorted())
        let modules = try exported.sorted().flatMap { module in try Self.parsed(module).map { (module, $0.name, $0.source) } }
        let missing = Self.unexportedAPITypes(exported: exported, homes: homes, modules: modules)
        #expect(missing.isEmpty, "\n\(missing.joined(separator: "\n"))")
    }

    @Test("the re-export check finds a public signature naming a type of a module GazeKit does not re-export")
    func reexportReader() {
        let recorder = SwiftSource("""
            public struct RecordingConfiguration { public var expressionModel: ExpressionModelFiles?
                private var hidden: Other
                public init(model: [ExpressionModelFiles]) { let x: Other = .init() } }
            """)
        let found = Self.unexportedAPITypes(exported: ["Recorder"], homes: ["ExpressionModelFiles": ["FaceExpression"], "Other": ["LabStreaming"]],
                                            modules: [("Recorder", "RecordingConfiguration.swift", recorder)])
        #expect(found.count == 2 && found.allSatisfy { $0.contains("ExpressionModelFiles of FaceExpression") }, "\(found)")
    }
}
