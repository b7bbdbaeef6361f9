import Foundation
import GazeCalibration
import GazeModel
import JSONStream

/// The model-choice benchmark: refits stored calibrations (exported documents, which keep every
/// collected frame) with each rule for choosing among the feature sets, and validates each fit on
/// the calibration's own validation targets. Every rule sees the same frames, so the differences
/// are the rules' alone; each set forced on its own gives the best that was available per
/// calibration. One JSON object per calibration on stdout (Scripts/bench_gaze.py reads them).
enum ChoiceBenchmark {
    /// A named way to fit.
    struct Rule {
        var name: String
        var fitter: CalibrationFitter
    }

    /// Every rule compared: the shipped fitter, the choices it could have made instead, each set
    /// alone, and each candidate set joining the choice.
    static func rules(minimumSamples: Int) -> [Rule] {
        func fitter(_ change: (inout CalibrationFitter) -> Void) -> CalibrationFitter {
            var fitter = CalibrationFitter(minimumSamplesPerPoint: minimumSamples)
            change(&fitter)
            return fitter
        }
        var rules = [
            Rule(name: "shipped", fitter: fitter { _ in }),
            Rule(name: "lowestError", fitter: fitter { $0.preferredSet = nil }),
            Rule(name: "patchesMargin25", fitter: fitter { $0.preferredSet = .patches; $0.preferenceMargin = 0.25 }),
            // The rule shipped before `appearance` was preferred (round 3's `shipped`).
            Rule(name: "patchesMargin50", fitter: fitter { $0.preferredSet = .patches; $0.preferenceMargin = 0.5 }),
            Rule(name: "inverseErrorBlend", fitter: fitter { $0.combination = .inverseErrorBlend }),
            Rule(name: "stackedBlend", fitter: fitter { $0.combination = .stackedBlend }),
            // The kept-back folds' best rule, `only.appearance`, as it now ships: `appearance`
            // preferred, the others still able to replace it (equal to `shipped`).
            Rule(name: "prefer.appearance", fitter: fitter { $0.preferredSet = .appearance }),
            // The blend of round 3's best 90th percentile, led by the shipped preference's sets.
            Rule(name: "appearanceBlend", fitter: fitter { $0.featureSets = [.appearance, .patches, .pupilPolynomial]; $0.combination = .inverseErrorBlend }),
        ]
        for set in GazeFeatureSet.allCases {
            rules.append(Rule(name: "only." + set.rawValue, fitter: fitter { $0.featureSets = [set]; $0.preferredSet = nil }))
        }
        // Each candidate set not tried by default, joining the choice as a new set would: beside
        // the others under the shipped rule, and in place of `patches` as the preferred set.
        for set in GazeFeatureSet.allCases where !CalibrationFitter.Configuration().featureSets.contains(set) {
            rules.append(Rule(name: "with." + set.rawValue, fitter: fitter { $0.featureSets.append(set) }))
            rules.append(Rule(name: "prefer." + set.rawValue, fitter: fitter { $0.featureSets.append(set); $0.preferredSet = set }))
        }
        return rules
    }

    static func run(files: [String], minimumSamples: Int) throws {
        let rules = rules(minimumSamples: minimumSamples)
        for file in files {
            let root = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: file))), name: file)
            let values = root.arrayValue ?? [root]
            for value in values {
                let record = try CalibrationRecord(value: value, source: file)
                print(try result(record, rules: rules))
            }
        }
    }

    /// One calibration refitted by every rule, as compact JSON.
    static func result(_ record: CalibrationRecord, rules: [Rule]) throws -> String {
        var calibration: [CalibrationPointSamples] = [], validation: [CalibrationPointSamples] = []
        for (index, target) in record.targets.enumerated() {
            let samples = record.samples.filter { $0.target == index }.map(\.features)
            let point = CalibrationPointSamples(target: target.position, samples: samples)
            if target.kind == .calibration { calibration.append(point) } else { validation.append(point) }
        }
        var members: [(String, JSONValue)] = []
        for rule in rules {
            members.append((rule.name, outcome(rule.fitter, calibration, validation)))
        }
        let sink = MemoryByteSink()
        let writer = JSONWriter(sink: sink, pretty: false)
        try writer.value(.object([("id", .string(record.id)), ("screenWidth", .number(record.screenWidth)),
                                  ("rules", .object(members))]))
        try writer.flush()
        return sink.text
    }

    /// A rule's fit and its validation per target, or why it failed.
    static func outcome(_ fitter: CalibrationFitter, _ calibration: [CalibrationPointSamples],
                        _ validation: [CalibrationPointSamples]) -> JSONValue {
        let fit: CalibrationFit
        do {
            fit = try fitter.fit(calibration)
        } catch {
            return .object([("error", .string(error.description))])
        }
        let report = ValidationReport.measure(mapping: fit.mapping, targets: validation, geometry: nil)
        let targets: [JSONValue] = report.points.map { point in
            var members: [(String, JSONValue)] = [("x", .number(point.target.x)), ("y", .number(point.target.y)),
                                                  ("samples", .number(Double(point.samples)))]
            if point.samples > 0 { members.append(("accuracyPoints", .number(point.accuracyPoints))) }
            return .object(members)
        }
        let weights: [(String, JSONValue)] = GazeFeatureSet.allCases.compactMap { set in
            fit.blendWeights[set].map { (set.rawValue, .number($0)) }
        }
        return .object([("set", .string(fit.mapping.featureSet.rawValue)), ("blend", .object(weights)),
                        ("crossValidationErrorPoints", .number(fit.crossValidationErrorPoints)),
                        ("skipped", .number(Double(fit.skipped.count))), ("targets", .array(targets))])
    }
}
