import Foundation
import SwiftSyntax

/// The targets `Package.swift` declares, read from its syntax: each target's name, kind, folder and
/// direct dependencies (targets of ours, and products of other packages by name).
struct PackageManifest {
    struct Target: Equatable {
        var name: String
        /// `target`, `executableTarget`, `testTarget`, `systemLibrary`.
        var kind: String
        /// The folder relative to the package root (`path:`, else Sources/NAME or Tests/NAME).
        var path: String
        var dependencies: [String]

        /// The module name Swift code imports (`gazerec-bench` → `gazerec_bench`).
        var module: String { name.replacingOccurrences(of: "-", with: "_") }
    }

    let targets: [Target]

    init(_ text: String) {
        let source = SwiftSource(text, fileName: "Package.swift")
        targets = source.calls.compactMap { call in
            guard ["target", "executableTarget", "testTarget", "systemLibrary"].contains(call.name),
                  call.node.calledExpression.as(MemberAccessExprSyntax.self)?.base == nil,
                  !Self.isDependency(call.node), let name = Self.string(call.node, "name") else { return nil }
            let folder = call.name == "testTarget" ? "Tests" : "Sources"
            let dependencies = call.node.arguments.first { $0.label?.text == "dependencies" }?.expression
                .as(ArrayExprSyntax.self)?.elements.compactMap { Self.dependencyName($0.expression) } ?? []
            return Target(name: name, kind: call.name, path: Self.string(call.node, "path") ?? "\(folder)/\(name)",
                          dependencies: dependencies)
        }
    }

    init(contentsOf url: URL) throws { self.init(try String(contentsOf: url, encoding: .utf8)) }

    /// Whether a call stands in a `dependencies:` list (`.target(name:)` naming a dependency, not declaring a target).
    static func isDependency(_ call: FunctionCallExprSyntax) -> Bool {
        var current = call.parent
        while let ancestor = current {
            if ancestor.as(LabeledExprSyntax.self)?.label?.text == "dependencies" { return true }
            current = ancestor.parent
        }
        return false
    }

    /// A string argument of a call (`name: "X"`).
    static func string(_ call: FunctionCallExprSyntax, _ label: String) -> String? {
        guard let literal = call.arguments.first(where: { $0.label?.text == label })?.expression.as(StringLiteralExprSyntax.self) else {
            return nil
        }
        return SwiftSource.literalText(literal)
    }

    /// `"X"`, `.product(name: "X", package: …)`, `.target(name: "X")`, `.byName(name: "X")` → X.
    static func dependencyName(_ expression: ExprSyntax) -> String? {
        if let literal = expression.as(StringLiteralExprSyntax.self) { return SwiftSource.literalText(literal) }
        if let call = expression.as(FunctionCallExprSyntax.self) { return string(call, "name") }
        return nil
    }

    func target(_ name: String) -> Target? { targets.first { $0.name == name } }

    /// The modules a package can build: its own targets and the products it takes from others.
    var packageModules: Set<String> { Set(targets.map(\.module)).union(targets.flatMap(\.dependencies).map { $0.replacingOccurrences(of: "-", with: "_") }) }
}
