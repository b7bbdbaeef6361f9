// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "gazerec",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "gazerec", targets: ["gazerec"]),
        // Everything a program needs to capture, analyse, calibrate and store gaze: `import GazeKit`.
        .library(name: "GazeKit", targets: ["GazeKit"]),
        // A lab's PostgreSQL server (needs libpq and libcrypto).
        .library(name: "LabServer", targets: ["LabServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The parser the architecture checks read the sources with (tests only).
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // The HTTP server of `gazerec view` (SessionReview only).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Its log, sent to stderr (stdout carries only the page's address).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Its header names (the security headers of every response).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // Streaming JSON reader and writer, JSONValue, the one CSV writer, byte sinks, and the one atomic file writer (AtomicFile, with the temporary files a signal removes and the stale ones a later run sweeps). Depends on nothing of ours.
        // The reader and writer touch class fields per byte; their accesses are single-threaded by
        // contract, so those fields are `@exclusivity(unchecked)` (the dynamic checks cost ~25 % of an import).
        .target(name: "JSONStream"),

        // The vocabulary every other module speaks: tracking states, a frame's measurements, gaze
        // and blend-shape samples, blink events, the typed "gazerec" extension, screen geometry.
        // Depends on nothing of ours.
        .target(name: "GazeModel"),

        // Pure Swift math: eye openness, blinks, pupils, head pose, shape plausibility, blend shapes.
        // Optimised in debug builds too: the tests run the per-frame math thousands of times.
        .target(name: "GazeCore", dependencies: ["GazeModel"], swiftSettings: [.unsafeFlags(["-O"])]),

        // dlib's 68-point landmark model (an ensemble of regression trees) read from its .dat file
        // and evaluated in Swift, keeping the sub-pixel positions dlib rounds away. Depends on
        // nothing; optimised in debug builds too (a fit walks 4 MB of tree leaves).
        .target(name: "ShapeRegression", swiftSettings: [.unsafeFlags(["-Ounchecked"])]),

        // The only code that includes dlib: C++ inside, a plain C API outside. Optimised even in
        // debug builds (dlib's templates at -O0 are tens of times slower). Built for x86-64-v2, with
        // a second copy of the HOG detector for AVX2 in a namespace of its own, chosen at run time
        // (src/gazerec_dlib_hog_wide.h). Debian's dlib is built against BLAS/LAPACK, whose
        // unversioned .so links exist only with their -dev packages.
        .target(
            name: "CDlibShim",
            cxxSettings: [.unsafeFlags(["-O3", "-march=x86-64-v2"])],
            linkerSettings: [
                .linkedLibrary("dlib"), .linkedLibrary(":libblas.so.3"), .linkedLibrary(":liblapack.so.3"),
                .linkedLibrary("pthread"), .linkedLibrary("m"),
            ]
        ),

        // FFmpeg's libraries (libavformat, libavcodec, libswscale) opened with dlopen on first use, so
        // commands that decode or encode nothing do not pay for loading them: the table of the
        // functions the video targets call, and its loader.
        .target(name: "CFFmpeg", cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("dl")]),

        // Video files and still images decoded into gray frames, or colour (planar 4:2:0) ones, with
        // presentation times.
        .target(name: "CVideoDecoder", dependencies: ["CFFmpeg"], cSettings: [.unsafeFlags(["-O2"])]),

        // Gray frames encoded losslessly (FFV1) into a video file: the saved video of a recording;
        // colour frames as FFV1 or H.264: the stimulus overlay and highlight clips.
        .target(name: "CVideoEncoder", dependencies: ["CFFmpeg"], cSettings: [.unsafeFlags(["-O2"])]),

        // V4L2 cameras through libv4l2; YUYV to gray directly, MJPEG through libjpeg's grayscale
        // decode (libv4lconvert for what libjpeg cannot read).
        .target(
            name: "CV4L2",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("v4l2"), .linkedLibrary("v4lconvert"), .linkedLibrary("jpeg")]
        ),

        // Frame sources: V4L2 cameras and video files, one Frame type with a timestamp; video files
        // read and written in colour.
        .target(name: "GazeCapture", dependencies: ["Channels", "CVideoDecoder", "CVideoEncoder", "CV4L2", "GazeCore",
                                                    "GazeModel"]),

        // Face detection and landmarks over the dlib shim, tracking between frames, per-frame features.
        .target(name: "GazeVision", dependencies: ["Channels", "CDlibShim", "ShapeRegression", "GazeCore", "GazeCapture", "GazeModel"]),

        // A bounded hand-off between threads, for the pipelines that overlap stages on two cores.
        .target(name: "Channels"),

        // What a recorded session's measurements add up to: attention (face and on-screen shares),
        // blink figures and PERCLOS, per session and per marker interval; fixations (I-DT, I-VT).
        .target(name: "GazeAnalysis", dependencies: ["GazeModel"]),

        // Figures a researcher publishes: a session's gaze drawn on its screen as SVG (kernel
        // density in seconds per square degree, scan path, fixations), and PNG through rsvg-convert.
        .target(name: "GazeFigures", dependencies: ["CZlib", "GazeAnalysis", "GazeModel"]),

        // zlib (Debian's zlib1g-dev): deflate for the figures' PNG images, gzip for BIDS tables.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // What people looked at and felt on a stimulus shown at a known place: screen points to
        // stimulus pixels, time since the stimulus appeared, per-bin timelines, areas of interest
        // (static and keyframed) and their metrics, and highlights (an expression most participants
        // showed while their gaze concentrated) with a crop that holds the gaze, and the overlay's
        // drawing on colour frames (gaze points, fixations, a moving heatmap). Pure Swift, no storage.
        .target(name: "StimulusAnalysis", dependencies: ["GazeAnalysis", "GazeModel", "JSONStream"]),

        // Stimulus studies over stored sessions: a stimulus file measured with FFmpeg, sessions read
        // from the store and aligned to its start marker, the tables of the stimulus analyses, and
        // the videos: the gaze overlay and the highlight clips.
        .target(name: "StimulusStudy", dependencies: ["ContentDigest", "GazeAnalysis", "GazeCapture", "GazeModel", "JSONStream",
                                                      "SessionStore", "StimulusAnalysis"]),

        // Eye-Tracking-BIDS datasets: recordings written as BIDS 1.10 physiological recordings
        // (PhysioType eyetrack; a session's expressions a generic one) with their sidecars, events and index files.
        .target(name: "BIDSExport", dependencies: ["ContentDigest", "CZlib", "GazeModel", "GazeAnalysis", "JSONStream"]),

        // The SQLite session database (sessions, samples, frames, blinks, calibrations), EyeTracking
        // JSON import, sessions streamed out as JSON and CSV, and the codec of the typed "gazerec" extension.
        .target(
            name: "SessionStore",
            dependencies: [
                "Channels", "JSONStream", "GazeAnalysis", "GazeCalibration", "GazeModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),

        // Stored sessions exported: one entry point with the format a value (EyeTracking JSON in each of
        // its styles, CSV, Eye-Tracking-BIDS runs) into a stream, a file or a folder, no byte of a
        // damaged session written; output files written whole.
        .target(name: "SessionExport", dependencies: ["BIDSExport", "GazeAnalysis", "GazeModel", "JSONStream", "SessionStore"]),

        // Figures of stored sessions: a session's gaze read from the store and drawn on its screen
        // (heatmap, scan path, fixations, expression band, legend), as SVG or PNG.
        .target(name: "SessionFigures", dependencies: ["GazeAnalysis", "GazeFigures", "GazeModel", "SessionExport", "SessionStore"]),

        // Calibration: the fit, the procedure, validation, the mapping and smoothing of gaze
        // (GazeStream), and calibrations as documents and target scripts. No storage.
        .target(name: "GazeCalibration", dependencies: ["GazeCore", "GazeModel", "JSONStream"],
                swiftSettings: [.unsafeFlags(["-O"])]),

        // The use cases over a camera or a video: the running recording (any measurement source →
        // samples → store, in batched commits; the one-recorder lock and status), calibration and
        // validation runs, and video analysis, all on one model → source → pipeline set-up.
        .target(name: "Recorder", dependencies: ["Channels", "FaceExpression", "GazeAnalysis", "GazeCalibration", "GazeCapture",
                                                 "GazeCore", "GazeModel", "GazeVision", "JSONStream", "LabStreaming", "SessionExport",
                                                 "SessionStore", "StimulusPresenter"]),

        // The stimulus presenter (`start --present`): Debian's mpv run as a child process and driven
        // through its JSON IPC over a Unix socket (`--input-ipc-server`). A process of its own, so a
        // player crash cannot take the recorder down and the samples stay stored; no libmpv C target
        // to build against; every property and event of the player is available over the socket.
        // Items probed with FFmpeg (GazeCapture) and hashed (ContentDigest) before anything is recorded.
        .target(name: "StimulusPresenter", dependencies: ["ContentDigest", "GazeCapture", "GazeModel", "JSONStream"]),

        // libpq, PostgreSQL's C client (Debian's libpq-dev).
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // OpenSSL's libcrypto (Debian's libssl-dev): SHA-256, used only through ContentDigest.
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),

        // SHA-256 of files and streams (a presented stimulus, a dataset's stimuli, a pushed
        // document): one implementation, OpenSSL's, with the CPU's SHA instructions.
        .target(name: "ContentDigest", dependencies: ["CLibCrypto"]),

        // A lab's PostgreSQL server: its schema and roles, a station's sessions pushed (one
        // transaction each, once or as each recording ends), and sessions read back as a station
        // stores them.
        .target(name: "LabServer", dependencies: ["CLibPQ", "ContentDigest", "GazeModel", "JSONStream", "SessionExport", "SessionStore"]),

        // liblsl, the Lab Streaming Layer's C library, opened with dlopen: gazerec's own declarations
        // of the functions it calls, and their loader. Nothing else needs liblsl.
        .target(name: "CLSL", linkerSettings: [.linkedLibrary("dl")]),

        // Lab Streaming Layer outlets of a recording's gaze and markers, and an inlet of another
        // program's markers, on LSL's clock.
        .target(name: "LabStreaming", dependencies: ["CLSL", "GazeModel"]),

        // One import for programs built on gazerec's libraries (re-exports them, and every module their public API names; holds no code).
        .target(name: "GazeKit", dependencies: ["GazeModel", "GazeCore", "GazeAnalysis", "GazeFigures", "BIDSExport", "GazeCapture", "GazeVision",
                                                "FaceExpression", "GazeCalibration", "SessionStore", "SessionExport", "SessionFigures", "Recorder", "JSONStream",
                                                "LabStreaming", "ShapeRegression", "StimulusAnalysis", "StimulusStudy", "StimulusPresenter"]),

        // `gazerec view`: a local review page served on the loopback interface (Hummingbird): sessions,
        // series, stimulus files, AOI metrics and figures through the library entry points, the page's
        // HTML, CSS and JavaScript as bundled resources, a token made for each run, a Content-Security-Policy
        // forbidding outside loads, and every file path kept inside the folders it was given. A server,
        // like LabServer: not part of GazeKit.
        .target(
            name: "SessionReview",
            dependencies: ["GazeAnalysis", "GazeFigures", "GazeModel", "JSONStream", "SessionFigures", "SessionStore",
                           "StimulusAnalysis", "StimulusStudy",
                           .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                           .product(name: "HTTPTypes", package: "swift-http-types")],
            resources: [.copy("Resources")]
        ),

        // The command-line interface: a thin layer over the libraries.
        .executableTarget(
            name: "gazerec",
            dependencies: [
                "JSONStream", "GazeModel", "SessionStore", "SessionExport", "GazeCore", "GazeAnalysis", "GazeCalibration", "GazeCapture",
                "GazeVision", "Recorder", "LabServer", "BIDSExport", "FaceExpression", "SessionFigures", "StimulusAnalysis",
                "StimulusStudy", "StimulusPresenter", "SessionReview",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // ONNX Runtime's C API (libonnxruntime.so from PyPI's onnxruntime wheel, which ships no
        // header) opened with dlopen from a path given at run time: the members of its function
        // table gazerec calls, declared at their positions, and one model session over them.
        .target(name: "CONNXRuntime", cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("dl")]),

        // Expression probabilities (neutral, happy, surprise, sad, angry, disgust, fear) of a face
        // crop cut on the 68 landmarks, from the mini-Xception FER model run by ONNX Runtime.
        .target(name: "FaceExpression", dependencies: ["CONNXRuntime", "GazeCore", "GazeModel"]),

        // Benchmarks run by Scripts/bench-*.sh (release build).
        .executableTarget(
            name: "gazerec-bench",
            dependencies: ["JSONStream", "GazeModel", "SessionStore", "GazeCore", "GazeAnalysis", "GazeCalibration",
                           "GazeCapture", "GazeVision", "CDlibShim", "FaceExpression", "LabStreaming"],
            path: "Sources/GazerecBench"
        ),

        // Fixture lookup and helpers shared by the test targets.
        .target(name: "TestSupport", dependencies: ["GazeCalibration", "GazeCore", "GazeModel", "SessionStore"], path: "Tests/TestSupport"),
        .testTarget(name: "JSONStreamTests", dependencies: ["JSONStream"]),
        .testTarget(name: "GazeModelTests", dependencies: ["GazeModel"]),
        .testTarget(name: "ChannelsTests", dependencies: ["Channels"]),
        .testTarget(name: "SessionStoreTests", dependencies: ["SessionStore", "JSONStream", "GazeModel", "TestSupport",
                                                              .product(name: "GRDB", package: "GRDB.swift")],
                    resources: [.copy("Schemas")]),
        .testTarget(name: "SessionExportTests", dependencies: ["SessionExport", "SessionStore", "BIDSExport", "JSONStream",
                                                             "TestSupport"]),
        .testTarget(name: "GazeCoreTests", dependencies: ["GazeCore", "GazeAnalysis", "GazeModel", "TestSupport"]),
        .testTarget(name: "FaceExpressionTests", dependencies: ["FaceExpression", "GazeCapture", "GazeCore", "GazeModel",
                                                                "TestSupport"]),
        .testTarget(name: "GazeAnalysisTests", dependencies: ["GazeAnalysis", "GazeModel"]),
        .testTarget(name: "ContentDigestTests", dependencies: ["ContentDigest"]),
        .testTarget(name: "StimulusPresenterTests", dependencies: ["StimulusPresenter", "ContentDigest", "GazeModel", "JSONStream", "TestSupport"]),
        .testTarget(name: "StimulusAnalysisTests", dependencies: ["StimulusAnalysis", "GazeAnalysis", "GazeModel"]),
        .testTarget(name: "BIDSExportTests", dependencies: ["BIDSExport", "GazeAnalysis", "GazeModel", "JSONStream", "TestSupport"]),
        .testTarget(name: "GazeFiguresTests", dependencies: ["GazeFigures", "GazeAnalysis", "GazeModel", "GazeCapture", "TestSupport"]),
        .testTarget(name: "GazeCaptureTests", dependencies: ["GazeCapture", "CV4L2", "GazeCore", "GazeModel", "TestSupport"]),
        .testTarget(name: "ShapeRegressionTests", dependencies: ["ShapeRegression", "GazeVision", "GazeCapture", "GazeCore", "GazeModel",
                                                                 "CDlibShim", "TestSupport"]),
        .testTarget(name: "GazeVisionTests", dependencies: ["GazeVision", "GazeCapture", "GazeCore", "GazeModel", "CDlibShim",
                                                            "TestSupport"]),
        .testTarget(name: "GazeCalibrationTests", dependencies: ["GazeCalibration", "GazeCore", "GazeModel", "JSONStream", "Recorder",
                                                                 "SessionStore",
                                                                 "TestSupport"]),
        .testTarget(name: "RecorderTests", dependencies: ["Recorder", "GazeCapture", "GazeCore", "GazeModel", "JSONStream", "SessionStore",
                                                          "GazeCalibration", "GazeVision", "FaceExpression", "TestSupport"]),
        .testTarget(name: "LabStreamingTests", dependencies: ["LabStreaming", "GazeModel", "JSONStream", "TestSupport", "gazerec"]),
        .testTarget(name: "GazerecCLITests", dependencies: ["gazerec", "SessionStore", "SessionFigures", "GazeCalibration", "GazeCapture",
                                                            "GazeModel", "JSONStream", "Recorder", "StimulusPresenter", "TestSupport",
                                                            .product(name: "GRDB", package: "GRDB.swift")],
                    // Read from the source tree by the snapshot tests (and rewritten there), not bundled.
                    exclude: ["HelpSnapshots"]),
        // The lab server against a real PostgreSQL (Scripts/setup-postgres.sh), through the built binary.
        // The layering and the house rules checked on the sources as the compiler's parser reads them
        // (SwiftSyntax), and every module's imports against the dependencies declared here.
        .testTarget(name: "ArchitectureTests", dependencies: [
            "TestSupport", .product(name: "SwiftParser", package: "swift-syntax"), .product(name: "SwiftSyntax", package: "swift-syntax"),
        ]),
        // `gazerec view`'s page in headless Chromium (chromedriver's WebDriver API), its refusals through curl.
        .testTarget(name: "ReviewPageTests", dependencies: ["gazerec", "TestSupport", "GazeModel", "SessionStore", "SessionReview"]),
        .testTarget(name: "LabServerTests", dependencies: ["gazerec", "LabServer", "SessionStore", "GazeModel", "JSONStream",
                                                           "TestSupport"]),
    ],
    cxxLanguageStandard: .cxx17
)
