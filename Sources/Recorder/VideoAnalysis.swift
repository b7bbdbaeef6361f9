import FaceExpression
import GazeAnalysis
import GazeCore
import GazeModel
import GazeVision

/// A video's frames measured as a recording measures them, without storing them: each frame's
/// features and each completed blink handed to the caller in order, and the eye figures a
/// recording stores under `"gazerec"."eyes"`, from the same frames and events.
public struct VideoAnalysis {
    /// What the analysis tells, in order.
    public enum Observation {
        /// A frame's features (without its image) once its blink flag is final, with its
        /// expression probabilities when they were asked for and a face was found.
        case frame(FrameFeatures, expression: ExpressionProbabilities?)
        /// A blink, as soon as it completed.
        case blink(BlinkEvent)
    }

    public let vision: VisionInput
    public let expressions: ExpressionStage?

    public init(vision: VisionInput, expressions: ExpressionStage? = nil) {
        self.vision = vision
        self.expressions = expressions
    }

    /// Runs every frame through the pipeline. `observe` receives the observations; `notUpright`, once,
    /// the first frame's verdict when a face is not upright (its frames are not tracked) and its time;
    /// `progress` the number of frames done. Frames wait while their eye closure is undecided.
    public func run(observe: (Observation) throws -> Void,
                    notUpright: (FaceUprightness, Double) -> Void = { _, _ in },
                    progress: (Int) -> Void = { _ in }) throws -> EyeStatistics {
        let pipeline = vision.pipeline
        var statistics = EyeStatistics()
        var flags = BlinkFlagResolver()
        var probabilities: [Int: ExpressionProbabilities] = [:]
        var warned = false
        func decided(_ frames: [FrameFeatures]) throws {
            for features in frames {
                try observe(.frame(features, expression: probabilities.removeValue(forKey: features.frameIndex)))
            }
        }
        try pipeline.processAll(vision.frames) { features, event in
            if !warned, let verdict = pipeline.lastNotUpright, verdict.warning(atSeconds: features.timestampSeconds) != nil {
                warned = true
                notUpright(verdict, features.timestampSeconds)
            }
            if let event { try observe(.blink(event)) }
            if let values = try expressions?.probabilities(features) { probabilities[features.frameIndex] = values }
            // Frames wait through a whole closure: without their image, which no observer needs.
            var frame = features
            frame.image = nil
            try decided(flags.add(frame, completed: event))
            statistics.add(features.measurement)
            if let event { statistics.add(event) }
            progress(features.frameIndex + 1)
        }
        let last = pipeline.finish()
        if let last {
            try observe(.blink(last))
            statistics.add(last)
        }
        try decided(flags.finish(completed: last))
        return statistics
    }
}
