/// Why expression probabilities cannot be had, each a sentence that says what to do.
public enum ExpressionError: Error, CustomStringConvertible, Equatable {
    /// ONNX Runtime's library is not at `path`, or is not ONNX Runtime.
    case runtimeUnavailable(path: String, reason: String)
    /// The expression model is not at `path`, or does not load.
    case modelUnavailable(path: String, reason: String)
    /// The model ran and failed.
    case inferenceFailed(reason: String)

    static let howToInstall = "install ONNX Runtime and the expression model with the set-up command "
        + "'bash Scripts/setup-expressions.sh', run in a clone of gazerec's repository (it puts both in "
        + "$XDG_DATA_HOME/gazerec/expressions, by default ~/.local/share/gazerec/expressions, where gazerec looks), "
        + "or point GAZEREC_ONNXRUNTIME and GAZEREC_EXPRESSION_MODEL at them"

    public var description: String {
        switch self {
        case let .runtimeUnavailable(path, reason):
            "cannot load ONNX Runtime from \(path): \(reason); \(Self.howToInstall)."
        case let .modelUnavailable(path, reason):
            "cannot load the expression model from \(path): \(reason); \(Self.howToInstall)."
        case let .inferenceFailed(reason):
            "cannot estimate expressions: \(reason)"
        }
    }
}
