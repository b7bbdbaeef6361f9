import Foundation
import Testing
import TestSupport

/// Another Swift package can depend on gazerec's libraries by version: SwiftPM loads the package
/// graph (where it refuses a version-pinned dependency whose products carry flags it does not
/// accept) without an error.
@Suite("a package that depends on gazerec")
struct DependablePackageTests {
    /// This tree's manifest and sources, committed and tagged in a scratch repository, as a
    /// version-pinned dependency of a new package that uses the `GazeKit` and `LabServer` products.
    @Test("a version-pinned dependency on GazeKit and LabServer loads")
    func loadsAsVersionedDependency() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let dependency = folder.url.appendingPathComponent("gazerec")
        let consumer = folder.url.appendingPathComponent("consumer")
        try FileManager.default.createDirectory(at: dependency, withIntermediateDirectories: true)
        for item in ["Package.swift", "Sources", "Tests"] {
            try FileManager.default.copyItem(at: Fixtures.repositoryRoot.appendingPathComponent(item),
                                             to: dependency.appendingPathComponent(item))
        }
        let git = ["-C", dependency.path, "-c", "user.name=test", "-c", "user.email=test@example.invalid"]
        for arguments in [["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"], ["tag", "1.0.0"]] {
            let step = try Binary.runProcess("/usr/bin/git", git + arguments)
            try #require(step.status == 0, "git \(arguments.joined(separator: " ")): \(step.stderr)")
        }
        try FileManager.default.createDirectory(at: consumer.appendingPathComponent("Sources/Consumer"), withIntermediateDirectories: true)
        try """
            // swift-tools-version:6.1
            import PackageDescription
            let package = Package(
                name: "consumer",
                dependencies: [.package(url: "\(dependency.absoluteString)", exact: "1.0.0")],
                targets: [.executableTarget(name: "Consumer", dependencies: [
                    .product(name: "GazeKit", package: "gazerec"), .product(name: "LabServer", package: "gazerec"),
                ])]
            )
            """.write(to: consumer.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "import GazeKit\n".write(to: consumer.appendingPathComponent("Sources/Consumer/main.swift"), atomically: true, encoding: .utf8)

        let loaded = try Binary.runProcess("/usr/bin/env", ["swift", "package", "--package-path", consumer.path, "show-dependencies"])

        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(!loaded.stderr.contains("unsafe build flags"), "\(loaded.stderr)")
        #expect(loaded.stdout.contains("gazerec<"), "\(loaded.stdout)")
    }
}
