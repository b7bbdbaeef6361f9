import ArgumentParser
import GazeModel

/// `--between LABEL1 [LABEL2]`: one trial of a session, between two of its event markers.
struct IntervalOptions: ParsableArguments {
    @Option(name: .customLong("between"), parsing: .upToNextOption,
            help: ArgumentHelp("Only the samples from the first marker LABEL1 to the first marker LABEL2 after it "
                               + "(without LABEL2: until the next marker of any label).", valueName: "label"))
    var labels: [String] = []

    func validate() throws {
        if labels.count > 2 { throw ValidationError("--between takes one or two marker labels, got \(labels.count).") }
    }
}
