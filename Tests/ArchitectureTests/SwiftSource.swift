import Foundation
import SwiftParser
import SwiftSyntax

/// A Swift source file as the compiler's parser reads it: its imports, string literals, functions,
/// declared types and the names its code refers to, each where it stands. Comments are trivia and
/// never seen; an interpolation is code, a literal inside one a literal of its own.
struct SwiftSource {
    /// A name the code refers to, resolved as far as the source alone allows.
    struct Reference: Equatable {
        /// The components as written: `Gazerec.Start.accuracyText` → ["Gazerec", "Start", "accuracyText"].
        var path: [String]
        /// The enclosing type scopes, innermost first, as qualified names ("Gazerec.Start", "Gazerec").
        var scopes: [String]
        var line: Int
        /// Whether the reference stands in a command configuration's `subcommands:` or `defaultSubcommand:` list.
        var inSubcommandList: Bool
        /// Whether the reference has a base whose type the source does not say (`value.name`).
        var hasOpaqueBase: Bool
    }

    /// A type declared in the file (struct, class, enum, actor, protocol, type alias), with its qualified name.
    struct TypeDeclaration: Equatable {
        var qualifiedName: String
        var line: Int
    }

    /// A member declared directly in an extension (`extension Gazerec { static func x() }` → Gazerec, x).
    struct ExtensionMember: Equatable {
        var extendedType: String
        var name: String
        var line: Int
    }

    let text: String
    let tree: SourceFileSyntax
    let converter: SourceLocationConverter
    /// Every node of the tree, in source order (a node before its children).
    let nodes: [Syntax]

    init(_ text: String, fileName: String = "source.swift") {
        self.text = text
        tree = Parser.parse(source: text)
        converter = SourceLocationConverter(fileName: fileName, tree: tree)
        nodes = tree.preOrder
    }

    /// The file at `url`, parsed once per test run (the checks share what they read).
    init(contentsOf url: URL) throws {
        self = try SourceCache.shared.source(url)
    }

    init(reading url: URL) throws {
        self.init(try String(contentsOf: url, encoding: .utf8), fileName: url.lastPathComponent)
    }

    func line(_ position: AbsolutePosition) -> Int { converter.location(for: position).line }

    /// The modules imported, in order, whatever the declaration's form (`@_exported`, an access level,
    /// under `#if`, `import struct M.T` → M).
    var imports: [String] {
        collect(ImportDeclSyntax.self).compactMap { $0.path.first?.name.text }
    }

    /// The modules imported with `@_exported`.
    var exportedImports: [String] {
        collect(ImportDeclSyntax.self).filter { declaration in
            declaration.attributes.contains { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "_exported" }
        }.compactMap { $0.path.first?.name.text }
    }

    /// Every string literal in source order (outer before nested): its text with each interpolation
    /// as written (`"a \(b ? "c" : "d")"` → `a \(b ? "c" : "d")`, then `c`, then `d`).
    var stringLiterals: [String] { collect(StringLiteralExprSyntax.self).map(Self.literalText) }

    /// The literal's text; only its plain segments when `interpolations` is false.
    static func literalText(_ literal: StringLiteralExprSyntax) -> String { literalText(literal, interpolations: true) }

    static func literalText(_ literal: StringLiteralExprSyntax, interpolations: Bool) -> String {
        literal.segments.map { segment in
            switch segment {
            case .stringSegment(let plain): return plain.content.text
            case .expressionSegment(let code): return interpolations ? code.trimmedDescription : " "
            }
        }.joined()
    }

    /// Every node of a kind, in source order.
    func collect<Node: SyntaxProtocol>(_ kind: Node.Type) -> [Node] {
        nodes.compactMap { $0.as(Node.self) }
    }

    /// Types declared in the file, nested ones by their qualified name (`extension Gazerec { struct A { enum B } }`
    /// → Gazerec.A, Gazerec.A.B).
    var typeDeclarations: [TypeDeclaration] {
        nodes.compactMap { node -> TypeDeclaration? in
            guard let name = Self.declaredTypeName(node) else { return nil }
            let qualified = (Self.scopes(of: Syntax(node)).first.map { $0 + "." } ?? "") + name
            return TypeDeclaration(qualifiedName: qualified, line: line(node.positionAfterSkippingLeadingTrivia))
        }
    }

    /// Members declared directly in an extension's body (functions, properties, subscripts, initializers' types).
    var extensionMembers: [ExtensionMember] {
        collect(ExtensionDeclSyntax.self).flatMap { extensionDeclaration in
            extensionDeclaration.memberBlock.members.flatMap { member -> [ExtensionMember] in
                let extended = extensionDeclaration.extendedType.trimmedDescription
                let at = line(member.positionAfterSkippingLeadingTrivia)
                if let function = member.decl.as(FunctionDeclSyntax.self) {
                    return [ExtensionMember(extendedType: extended, name: function.name.text, line: at)]
                }
                if let variable = member.decl.as(VariableDeclSyntax.self) {
                    return variable.bindings.compactMap { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text }
                        .map { ExtensionMember(extendedType: extended, name: $0, line: at) }
                }
                return []
            }
        }
    }

    /// Names of the declarations anywhere in the file (types, functions, properties, enum cases).
    var declaredNames: Set<String> {
        var names = Set(nodes.compactMap(Self.declaredTypeName))
        names.formUnion(collect(FunctionDeclSyntax.self).map(\.name.text))
        names.formUnion(collect(PatternBindingSyntax.self).compactMap { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text })
        names.formUnion(collect(EnumCaseElementSyntax.self).map(\.name.text))
        return names
    }

    static func declaredTypeName(_ node: Syntax) -> String? {
        if let declaration = node.as(StructDeclSyntax.self) { return declaration.name.text }
        if let declaration = node.as(ClassDeclSyntax.self) { return declaration.name.text }
        if let declaration = node.as(EnumDeclSyntax.self) { return declaration.name.text }
        if let declaration = node.as(ActorDeclSyntax.self) { return declaration.name.text }
        if let declaration = node.as(ProtocolDeclSyntax.self) { return declaration.name.text }
        if let declaration = node.as(TypeAliasDeclSyntax.self) { return declaration.name.text }
        return nil
    }

    /// The type scopes around a node, innermost first, as qualified names; an extension opens the
    /// scope of the type it extends.
    static func scopes(of node: Syntax) -> [String] {
        var names: [String] = []
        var current = node.parent
        while let ancestor = current {
            if let extensionDeclaration = ancestor.as(ExtensionDeclSyntax.self) {
                names.append(extensionDeclaration.extendedType.trimmedDescription)
            } else if let name = declaredTypeName(ancestor), ancestor.as(TypeAliasDeclSyntax.self) == nil {
                names.append(name)
            }
            current = ancestor.parent
        }
        // ["B", "A", "Gazerec"] → ["Gazerec.A.B", "Gazerec.A", "Gazerec"]
        return names.indices.map { index in names[index...].reversed().joined(separator: ".") }
    }

    /// Every name the code refers to: identifiers in expressions and in types, with the member
    /// chain they stand in (`Gazerec.Start.accuracyText` is seen three times, as its three prefixes).
    var references: [Reference] {
        nodes.compactMap { node -> Reference? in
            guard let path = Self.referencePath(node) else { return nil }
            return Reference(path: path.names, scopes: Self.scopes(of: node), line: line(node.positionAfterSkippingLeadingTrivia),
                             inSubcommandList: Self.inSubcommandList(node), hasOpaqueBase: path.opaque)
        }
    }

    /// The chain a name stands at the end of: an identifier, a member of a named chain, or a type.
    static func referencePath(_ node: Syntax) -> (names: [String], opaque: Bool)? {
        if let reference = node.as(DeclReferenceExprSyntax.self) {
            if let member = reference.parent?.as(MemberAccessExprSyntax.self), member.declName.id == reference.id {
                guard let base = member.base else { return ([reference.baseName.text], true) }
                guard let prefix = chain(base) else { return ([reference.baseName.text], true) }
                return (prefix + [reference.baseName.text], false)
            }
            return ([reference.baseName.text], false)
        }
        if let type = node.as(IdentifierTypeSyntax.self) { return ([type.name.text], false) }
        if let type = node.as(MemberTypeSyntax.self), let prefix = typeChain(type.baseType) { return (prefix + [type.name.text], false) }
        return nil
    }

    static func chain(_ expression: ExprSyntax) -> [String]? {
        if let reference = expression.as(DeclReferenceExprSyntax.self) { return [reference.baseName.text] }
        if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base, let prefix = chain(base) {
            return prefix + [member.declName.baseName.text]
        }
        if let specialized = expression.as(GenericSpecializationExprSyntax.self) { return chain(specialized.expression) }
        return nil
    }

    static func typeChain(_ type: TypeSyntax) -> [String]? {
        if let identifier = type.as(IdentifierTypeSyntax.self) { return [identifier.name.text] }
        if let member = type.as(MemberTypeSyntax.self), let prefix = typeChain(member.baseType) { return prefix + [member.name.text] }
        return nil
    }

    static func inSubcommandList(_ node: Syntax) -> Bool {
        var current = node.parent
        while let ancestor = current {
            if let argument = ancestor.as(LabeledExprSyntax.self),
               ["subcommands", "defaultSubcommand"].contains(argument.label?.text) { return true }
            current = ancestor.parent
        }
        return false
    }

    /// Calls in the code: the called name (its last component) and the argument labels.
    var calls: [(name: String, labels: [String?], line: Int, node: FunctionCallExprSyntax)] {
        collect(FunctionCallExprSyntax.self).compactMap { call in
            guard let path = Self.chain(call.calledExpression) ?? Self.implicitMember(call.calledExpression) else { return nil }
            return (path.last!, call.arguments.map { $0.label?.text }, line(call.positionAfterSkippingLeadingTrivia), call)
        }
    }

    /// `.name` with no base.
    static func implicitMember(_ expression: ExprSyntax) -> [String]? {
        guard let member = expression.as(MemberAccessExprSyntax.self) else { return nil }
        if let base = member.base { return chain(base).map { $0 + [member.declName.baseName.text] } ?? [member.declName.baseName.text] }
        return [member.declName.baseName.text]
    }

    /// The names referred to anywhere in the code (identifiers, members, types), for a quick "is X used".
    var referencedNames: Set<String> { Set(references.compactMap(\.path.last)) }
}

/// The length of each function, initializer, deinitializer, subscript and computed property in a
/// Swift source: from the line of its declaration keyword to the line of its closing brace.
enum FunctionLengths {
    struct Function: Equatable {
        var name: String
        var line: Int
        var lines: Int
    }

    static func measure(_ text: String) -> [Function] { measure(SwiftSource(text)) }

    static func measure(_ source: SwiftSource) -> [Function] {
        source.nodes.compactMap { node -> Function? in
            guard let (name, keyword, close) = span(node) else { return nil }
            let start = source.line(keyword.positionAfterSkippingLeadingTrivia)
            return Function(name: name, line: start, lines: source.line(close.positionAfterSkippingLeadingTrivia) - start + 1)
        }
    }

    /// A declaration's name, keyword and closing brace, when it has a body.
    static func span(_ node: Syntax) -> (String, TokenSyntax, TokenSyntax)? {
        if let function = node.as(FunctionDeclSyntax.self), let body = function.body {
            return (function.name.text, function.funcKeyword, body.rightBrace)
        }
        if let initializer = node.as(InitializerDeclSyntax.self), let body = initializer.body {
            return ("init", initializer.initKeyword, body.rightBrace)
        }
        if let deinitializer = node.as(DeinitializerDeclSyntax.self), let body = deinitializer.body {
            return ("deinit", deinitializer.deinitKeyword, body.rightBrace)
        }
        if let subscriptDeclaration = node.as(SubscriptDeclSyntax.self), let body = subscriptDeclaration.accessorBlock {
            return ("subscript", subscriptDeclaration.subscriptKeyword, body.rightBrace)
        }
        // A computed property (a type, no initial value, accessors): as long as a function.
        if let variable = node.as(VariableDeclSyntax.self), variable.bindingSpecifier.text == "var",
           let binding = variable.bindings.first, binding.typeAnnotation != nil, binding.initializer == nil,
           let accessors = binding.accessorBlock, let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text {
            return (name, variable.bindingSpecifier, accessors.rightBrace)
        }
        return nil
    }
}

/// Collects every node below one, in source order.
final class NodeCollector: SyntaxAnyVisitor {
    var nodes: [Syntax] = []

    override func visitAny(_ node: Syntax) -> SyntaxVisitorContinueKind {
        nodes.append(node)
        return .visitChildren
    }
}

extension SyntaxProtocol {
    /// This node and every node below it, in source order (a node before its children).
    var preOrder: [Syntax] {
        let collector = NodeCollector(viewMode: .sourceAccurate)
        collector.walk(self)
        return collector.nodes
    }
}

/// The parsed files of this test run, by path: each file is parsed once, whichever check asks first.
final class SourceCache: @unchecked Sendable {
    static let shared = SourceCache()
    private let lock = NSLock()
    private var sources: [String: SwiftSource] = [:]

    func source(_ url: URL) throws -> SwiftSource {
        if let known = lock.withLock({ sources[url.path] }) { return known }
        let parsed = try SwiftSource(reading: url)
        lock.withLock { sources[url.path] = parsed }
        return parsed
    }
}
