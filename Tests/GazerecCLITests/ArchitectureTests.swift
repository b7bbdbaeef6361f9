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
        "GazeCore": ["GazeModel"],
        "GazeCapture": ["GazeModel", "GazeCore", "Channels", "CVideoDecoder", "CV4L2"],
        "GazeVision": ["GazeModel", "GazeCore", "GazeCapture", "Channels", "CDlibShim"],
        "SessionStore": ["GazeModel", "JSONStream", "Channels"],
        "GazeCalibration": ["GazeModel", "GazeCore", "JSONStream"],
        "LabServer": ["CLibCrypto", "CLibPQ", "GazeModel", "JSONStream", "SessionStore"],
        "Recorder": ["GazeModel", "GazeCore", "GazeCapture", "GazeVision", "GazeCalibration", "SessionStore", "JSONStream", "Channels"],
    ]

    static let ours: Set<String> = Set(allowed.keys).union(["CVideoDecoder", "CV4L2", "CDlibShim", "CLibPQ", "CLibCrypto", "gazerec", "GazerecBench"])

    static func swiftFiles(_ module: String) throws -> [URL] {
        let folder = sources.appendingPathComponent(module)
        return try FileManager.default.subpathsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".swift") }.map { folder.appendingPathComponent($0) }
    }

    @Test("no module imports a module above it", arguments: allowed.keys.sorted())
    func imports(_ module: String) throws {
        for file in try Self.swiftFiles(module) {
            let text = try String(contentsOf: file, encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                let name = String(line.split(separator: " ").last!)
                guard Self.ours.contains(name) else { continue }
                #expect(Self.allowed[module]!.contains(name), "\(module)/\(file.lastPathComponent) imports \(name)")
            }
        }
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
            var current: String?
            var escaped = false
            for character in code {
                if var literal = current {
                    if escaped { literal.append(character); escaped = false; current = literal; continue }
                    if character == "\\" { escaped = true; literal.append(character); current = literal; continue }
                    if character == "\"" { literals.append(literal); current = nil; continue }
                    literal.append(character)
                    current = literal
                } else if character == "\"" {
                    current = ""
                }
            }
        }
        return literals
    }

    @Test("no library source outside the CLI has a command-line flag in a string", arguments: allowed.keys.sorted())
    func noFlagsInLibraries(_ module: String) throws {
        let flag = try Regex(#"(^|[\s('"`])--[a-z][a-z-]*"#)
        for file in try Self.swiftFiles(module) {
            for literal in Self.stringLiterals(try String(contentsOf: file, encoding: .utf8)) {
                #expect(literal.firstMatch(of: flag) == nil, "\(module)/\(file.lastPathComponent): \"\(literal)\"")
            }
        }
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
