import ArgumentParser
import FaceExpression
import Recorder

/// `--expressions`: each frame's expression probabilities from the expression model.
struct ExpressionOptions: ParsableArguments {
    @Flag(help: ArgumentHelp("Add each frame's expression probabilities (neutral, happy, surprise, sad, angry, disgust, "
                             + "fear) from the FER model run by ONNX Runtime (install both with "
                             + "Scripts/setup-expressions.sh; docs/Expressions.md)."))
    var expressions = false

    /// The runtime's and the model's files when asked for, checked by loading them once (so a
    /// missing one fails before anything starts, with the library's one line and the CLI's hint).
    func checkedFiles() throws -> ExpressionModelFiles? {
        guard expressions else { return nil }
        let files = ExpressionModelFiles.standard()
        _ = try ExpressionStage(files: files)
        return files
    }
}

extension ExpressionError: RuntimeFailure {}
