import ArgumentParser
import Foundation
import GazeAnalysis
import GazeCore
import GazeModel
import JSONStream
import SessionStore

extension FixationDetector.Method: ExpressibleByArgument {}

/// Output formats of `fixations`.
enum FixationFormat: String, CaseIterable, ExpressibleByArgument {
    case table, csv, json
}

extension Gazerec {
    /// `gazerec fixations SESSION`: fixations of a session's scan path.
    struct Fixations: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Detect fixations in a session's scan path (I-DT or I-VT).",
            discussion: """
                Thresholds are in degrees of visual angle: converted with --screen-size-mm and --distance-mm \
                when given, else with the screen size and distance of the session's calibration (when it \
                was made with them), else at 40 screen points per degree (a 96 dpi screen seen from about \
                60 cm). \
                Defaults: I-DT 1.5° dispersion over at least 80 ms (Pupil Labs), I-VT 30 °/s \
                (Salvucci & Goldberg 2000). Samples more than 100 ms apart never share a fixation.
                """)

        @OptionGroup var store: ReadableStoreOptions

        @OptionGroup var interval: IntervalOptions

        @Argument(help: "The session id.")
        var id: String

        @Option(help: "Detection method.")
        var method: FixationDetector.Method = FixationDetector.standard.method

        @Option(help: "Output format.")
        var format: FixationFormat = .table

        @Option(help: ArgumentHelp("Physical screen size in millimetres (WxH).", valueName: "WxH"),
                transform: MillimetreSize.parse)
        var screenSizeMm: MillimetreSize?

        @Option(parsing: .unconditional, help: ArgumentHelp("Eye-to-screen distance in millimetres.", valueName: "mm"))
        var distanceMm: Double?

        @Option(parsing: .unconditional, help: ArgumentHelp("I-DT dispersion threshold in degrees.", valueName: "degrees"))
        var dispersion: Double = FixationDetector.standard.dispersionThresholdDegrees

        @Option(parsing: .unconditional, help: ArgumentHelp("I-VT velocity threshold in degrees per second.", valueName: "deg/s"))
        var velocity: Double = FixationDetector.standard.velocityThresholdDegreesPerSecond

        @Option(parsing: .unconditional, help: ArgumentHelp("Minimum fixation duration in seconds.", valueName: "seconds"))
        var minimumDuration: Double = FixationDetector.standard.minimumDurationSeconds

        func validate() throws {
            if (screenSizeMm == nil) != (distanceMm == nil) {
                throw ValidationError("Give --screen-size-mm and --distance-mm together.")
            }
            if let distanceMm, !(distanceMm > 0) { throw ValidationError("--distance-mm must be positive.") }
            if !(dispersion > 0) || !(velocity > 0) || !(minimumDuration >= 0) {
                throw ValidationError("Thresholds must be positive numbers.")
            }
        }

        func run() throws {
            let database = try store.openForReading(sessions: .named([id]))
            let (samples, screenWidth, screenHeight) = try database.scanPath(id: id, between: interval.labels)
            let explicit = screenSizeMm.flatMap { size in
                distanceMm.map {
                    ScreenGeometry(widthPoints: screenWidth, heightPoints: screenHeight, widthMillimetres: size.width,
                                   heightMillimetres: size.height, distanceMillimetres: $0)
                }
            }
            let (pointsPerDegree, geometrySource) = SessionViewing.pointsPerDegree(try database.summary(id: id).header,
                                                                                 explicit: explicit)
            let detector = FixationDetector(method: method, pointsPerDegree: pointsPerDegree,
                                            velocityThresholdDegreesPerSecond: velocity, dispersionThresholdDegrees: dispersion,
                                            minimumDurationSeconds: minimumDuration)
            let points = samples
            let (fixations, labels) = detector.detect(points)
            switch format {
            case .table:
                var rows = [["#", "START", "DURATION MS", "X", "Y", "SAMPLES", "DISPERSION"]]
                for (index, fixation) in fixations.enumerated() {
                    rows.append(["\(index + 1)", Formatting.isoTime(fixation.startSeconds),
                                 Formatting.fixed(fixation.durationSeconds * 1000, 1), Formatting.fixed(fixation.x, 1),
                                 Formatting.fixed(fixation.y, 1), "\(fixation.sampleCount)",
                                 Formatting.fixed(fixation.dispersionPoints, 1)])
                }
                Console.output(Formatting.table(rows))
            case .csv:
                var text = CSVWriter.line(["index", "start", "end", "duration", "x", "y", "samples", "dispersion"])
                for (index, f) in fixations.enumerated() {
                    text += CSVWriter.line(["\(index + 1)", Formatting.fixed(f.startSeconds, 6), Formatting.fixed(f.endSeconds, 6),
                                            Formatting.fixed(f.durationSeconds, 6), Formatting.fixed(f.x, 3), Formatting.fixed(f.y, 3),
                                            "\(f.sampleCount)", Formatting.fixed(f.dispersionPoints, 3)])
                }
                Console.output(text)
            case .json:
                Console.output(try JSONDocument.text(.array(fixations.map(\.jsonValue))))
            }
            let inFixations = labels.filter { $0 == .fixation }.count
            Console.note("\(fixations.count) fixation\(fixations.count == 1 ? "" : "s") (\(method.rawValue)) in \(samples.count) samples; "
                         + "\(samples.isEmpty ? "0" : Formatting.fixed(100 * Double(inFixations) / Double(samples.count), 1)) % of samples in fixations"
                         + (samples.isEmpty ? " (no scan path: was the session calibrated?)" : "")
                         + "; degrees from \(geometrySource)")
        }
    }
}
