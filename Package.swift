// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "gazerec",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "gazerec", targets: ["gazerec"]),
        .library(name: "SessionStore", targets: ["SessionStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // SQLite session store and the EyeTracking-compatible streaming JSON codec.
        .target(
            name: "SessionStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            // The JSON reader and writer touch class fields per byte; their accesses are
            // single-threaded by contract, and the dynamic exclusivity checks cost ~25 % of an import.
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]
        ),

        // The command-line interface: a thin layer over the libraries.
        .executableTarget(
            name: "gazerec",
            dependencies: [
                "SessionStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Benchmarks run by Scripts/bench-*.sh (release build).
        .executableTarget(
            name: "gazerec-bench",
            dependencies: ["SessionStore"],
            path: "Sources/GazerecBench"
        ),

        // Fixture lookup and helpers shared by the test targets.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "SessionStoreTests", dependencies: ["SessionStore", "TestSupport"]),
        .testTarget(name: "GazerecCLITests", dependencies: ["gazerec", "SessionStore", "TestSupport"]),
    ]
)
