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
    /// The contrast along each eye's slit over that eye's open level (`EyeSlitContrast`,
    /// `EyeSlitContrastLevel`): about 1 while the iris shows as usual; absent without an image.
    public var slitContrast: [Eye: Double] = [:]
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
    public var blinkDetector = BlinkRule.shipped.detector
    /// Below this confidence a frame is `lowConfidence`.
    public var lowConfidenceThreshold = 0.35
    /// Landmark motion between consecutive frames, in inter-ocular distances, above which a frame
    /// is `excessiveMotion`.
    public var excessiveMotionThreshold = 0.35
    /// Frames after (re)acquiring a face that are `initializing`.
    public var initializingFrames = 3
    /// The openness, at least, of eyes whose lids are low but whose irises show along their slits
    /// (a look down; both eyes judged together, as for blinks): above the 0.2 at which pupils, eye
    /// patches and PERCLOS take an eye for shut.
    public var narrowedOpenness = 0.3

    private var openness: [Eye: OpennessEstimator] = [.left: OpennessEstimator(), .right: OpennessEstimator()]
    private var contrastLevel: [Eye: EyeSlitContrastLevel] = [.left: EyeSlitContrastLevel(), .right: EyeSlitContrastLevel()]
    private var previous: FaceLandmarks?
    private var previousPose: HeadPose?
    private var framesSinceAcquired = 0
    private var lastTime: Double?

    public init(intrinsics: CameraIntrinsics, model: FaceModel3D = .noseAndEyeCorners) {
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
        let event = measureEyes(face: face, image: image, timestampSeconds: timestampSeconds, into: &features)

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

    /// Each eye's aspect ratio, openness and relative aperture, the slits' contrast, and the blink
    /// detector's step, into `features`; returns the event the frame completed. On this frame's own
    /// fit: the stabilised lids are a mean over frames, which blurs a short blink's dip. Eyes whose
    /// irises show along their slits are open however low their lids (a look down): their openness
    /// is at least `narrowedOpenness`.
    private mutating func measureEyes(face: FaceObservation, image: GrayImage?, timestampSeconds: Double,
                                      into features: inout FrameFeatures) -> BlinkEvent? {
        let lids = face.fit
        var visible: Bool?
        if let image { visible = measureSlits(in: image, landmarks: lids, into: &features) }
        for eye in Eye.allCases {
            let ratio = eyeAspectRatio(lids.contour(of: eye))
            features.aspectRatio[eye] = ratio
            var value = openness[eye]!.update(ratio: ratio)
            if visible == true { value = Swift.max(value, narrowedOpenness) }
            features.openness[eye] = value
            features.relativeAperture[eye] = ratio / Swift.max(openness[eye]!.openRatio, 1e-6)
        }
        let event = blinkDetector.update(timeSeconds: timestampSeconds, leftAperture: features.relativeAperture[.left]!,
                                         rightAperture: features.relativeAperture[.right]!,
                                         leftOpenness: features.openness[.left]!,
                                         rightOpenness: features.openness[.right]!, eyesVisible: visible)
        features.blinking = blinkDetector.isClosed
        return event
    }

    /// Each eye's slit contrast against its open level, into `features.slitContrast`; returns
    /// whether both eyes together show their irises (the mean of their relative contrasts at least
    /// the visible fraction), nil when an eye could not be measured.
    private mutating func measureSlits(in image: GrayImage, landmarks: FaceLandmarks, into features: inout FrameFeatures) -> Bool? {
        for eye in Eye.allCases {
            guard let contrast = EyeSlitContrast.measure(in: image, contour: landmarks.contour(of: eye)) else { continue }
            features.slitContrast[eye] = contrastLevel[eye]!.update(contrast: contrast)
        }
        guard let left = features.slitContrast[.left], let right = features.slitContrast[.right] else { return nil }
        return (left + right) / 2 >= contrastLevel[.left]!.visibleFraction
    }

    static func meanMotion(from a: FaceLandmarks, to b: FaceLandmarks) -> Double {
        var sum = 0.0
        for index in 0..<FaceLandmarks.count { sum += a[index].distance(to: b[index]) }
        return sum / Double(FaceLandmarks.count)
    }
}
