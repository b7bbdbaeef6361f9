import GazeModel

/// A face found in one frame: its landmarks and how much to trust them.
public struct FaceObservation: Sendable, Equatable {
    /// The landmarks the frame reports: the mean of the recent fits of a still head
    /// (`LandmarkStabilizer`), or this frame's fit when the head moved.
    public var landmarks: FaceLandmarks
    /// This frame's own landmark fit.
    public var fit: FaceLandmarks
    /// 0…1, from the shape plausibility of the fit (see `MeanShape.confidence`).
    public var confidence: Double
    /// Whether a face detector found the face in this frame (false: the box came from the previous frame).
    public var detected: Bool
    /// The detector stage that found it (nil when tracked): "hogShrunk", "hogFull", "hogEqualized",
    /// "cnnShrunk" or "cnnFull".
    public var stage: String?

    public init(landmarks: FaceLandmarks, fit: FaceLandmarks? = nil, confidence: Double, detected: Bool, stage: String? = nil) {
        self.landmarks = landmarks
        self.fit = fit ?? landmarks
        self.confidence = confidence
        self.detected = detected
        self.stage = stage
    }
}

/// Everything gazerec measures in one frame.
public struct FrameFeatures: Sendable {
    public var frameIndex: Int
    /// Seconds in the source's time base (Unix time for cameras, presentation time for files).
    public var timestampSeconds: Double
    public var trackingState: TrackingState
    /// 0…1; 0 without a face.
    public var confidence: Double
    public var face: FaceObservation?
    /// Eye aspect ratio per eye (participant's left/right).
    public var aspectRatio: [Eye: Double] = [:]
    /// Openness 0…1 per eye.
    public var openness: [Eye: Double] = [:]
    /// Eye aspect ratio over this eye's open level (1 = usual open, above 1 = wider).
    public var relativeAperture: [Eye: Double] = [:]
    /// Whether an eye is closed in this frame (hysteresis of the blink detector).
    public var blinking = false
    public var pupils: [Eye: PupilObservation] = [:]
    public var headPose: HeadPose?
    /// The stabilised landmarks and the eye patches cut on them.
    public var appearance: EyeAppearance?
    /// The frame's gray image, kept with a face for the stages that read the face itself (the
    /// expression model's crop); nil without a face. Shared, not copied.
    public var image: GrayImage?

    /// What gazerec keeps of this frame, stamped with `timestampSeconds` (the store's Unix time;
    /// a replayed file's frames are shifted from their presentation time). The one conversion
    /// from the pipeline's rich result to the recorded, stored and mapped measurement.
    public func measurement(timestampSeconds: Double) -> FrameMeasurement {
        FrameMeasurement(
            timestampSeconds: timestampSeconds, trackingState: trackingState, confidence: confidence,
            opennessLeft: openness[.left], opennessRight: openness[.right],
            pupilLeft: pupils[.left]?.normalized, pupilRight: pupils[.right]?.normalized,
            headPose: headPose.map {
                HeadPoseMeasurement(yawDegrees: $0.yawDegrees, pitchDegrees: $0.pitchDegrees, rollDegrees: $0.rollDegrees,
                                    translation: $0.translation)
            }, appearance: appearance)
    }

    /// The measurement in the frames' own time base.
    public var measurement: FrameMeasurement { measurement(timestampSeconds: timestampSeconds) }
}

/// Turns face observations into per-frame eye features: openness, blinks, pupils, head pose, state.
///
/// One extractor per stream (it keeps each eye's open level, the blink state and the last pose).
/// Pure Swift: the face comes from the vision layer, so this runs and is tested without a camera.
public struct EyeFeatureExtractor: Sendable {
    public var poseEstimator: HeadPoseEstimator
    public var pupilLocator = PupilLocator()
    public var blinkDetector = BlinkDetector()
    /// Below this confidence a frame is `lowConfidence`.
    public var lowConfidenceThreshold = 0.35
    /// Landmark motion between consecutive frames, in inter-ocular distances, above which a frame
    /// is `excessiveMotion`.
    public var excessiveMotionThreshold = 0.35
    /// Frames after (re)acquiring a face that are `initializing`.
    public var initializingFrames = 3

    private var openness: [Eye: OpennessEstimator] = [.left: OpennessEstimator(), .right: OpennessEstimator()]
    private var previous: FaceLandmarks?
    private var previousPose: HeadPose?
    private var framesSinceAcquired = 0
    private var lastTime: Double?

    public init(intrinsics: CameraIntrinsics, model: FaceModel3D = .rigid) {
        poseEstimator = HeadPoseEstimator(model: model, intrinsics: intrinsics)
    }

    /// Processes one frame; returns its features and the blink event it completed, if any.
    public mutating func process(frameIndex: Int, timestampSeconds: Double, image: GrayImage?,
                                 face: FaceObservation?) -> (FrameFeatures, BlinkEvent?) {
        lastTime = timestampSeconds
        var features = FrameFeatures(frameIndex: frameIndex, timestampSeconds: timestampSeconds,
                                     trackingState: .missing, confidence: 0, face: face)
        guard let face else {
            previous = nil
            framesSinceAcquired = 0
            blinkDetector.missing(timeSeconds: timestampSeconds)
            return (features, nil)
        }
        let landmarks = face.landmarks
        (features.confidence, features.image) = (face.confidence, image)

        // 1. Tracking state.
        let motion = previous.map { Self.meanMotion(from: $0, to: landmarks) / Swift.max(landmarks.interocularDistance, 1) }
        if framesSinceAcquired < initializingFrames {
            features.trackingState = .initializing
        } else if face.confidence < lowConfidenceThreshold {
            features.trackingState = .lowConfidence
        } else if let motion, motion > excessiveMotionThreshold {
            features.trackingState = .excessiveMotion
        } else {
            features.trackingState = .normal
        }
        framesSinceAcquired += 1
        previous = landmarks

        // 2. Eyes: aspect ratio → openness → blinks.
        for eye in Eye.allCases {
            let ratio = eyeAspectRatio(landmarks.contour(of: eye))
            features.aspectRatio[eye] = ratio
            features.openness[eye] = openness[eye]!.update(ratio: ratio)
            features.relativeAperture[eye] = ratio / Swift.max(openness[eye]!.openRatio, 1e-6)
        }
        let event = blinkDetector.update(timeSeconds: timestampSeconds, leftAperture: features.relativeAperture[.left]!,
                                         rightAperture: features.relativeAperture[.right]!,
                                         leftOpenness: features.openness[.left]!,
                                         rightOpenness: features.openness[.right]!)
        features.blinking = blinkDetector.isClosed

        // 3. Pupils (skipped while the eye is shut: there is nothing to find).
        if let image {
            for eye in Eye.allCases where features.openness[eye]! > 0.2 {
                features.pupils[eye] = pupilLocator.locate(in: image, contour: landmarks.contour(of: eye))
            }
        }

        // 4. Head pose.
        let pose = poseEstimator.estimate(landmarks, previous: previousPose)
        features.headPose = pose
        previousPose = pose

        // 5. What a calibration maps: the landmarks and each eye's patch (the image's, when there is one).
        if let image {
            features.appearance = EyeAppearance(landmarks: landmarks.points.flatMap { [Float($0.x), Float($0.y)] },
                                                patches: EyePatchSampler.patches(in: image, landmarks: landmarks))
        }
        return (features, event)
    }

    /// Ends the stream, reporting a closure still in progress.
    public mutating func finish() -> BlinkEvent? {
        guard let lastTime else { return nil }
        return blinkDetector.finish(timeSeconds: lastTime)
    }

    static func meanMotion(from a: FaceLandmarks, to b: FaceLandmarks) -> Double {
        var sum = 0.0
        for index in 0..<FaceLandmarks.count { sum += a[index].distance(to: b[index]) }
        return sum / Double(FaceLandmarks.count)
    }
}
