import Foundation
import GazeModel
import Testing
@testable import GazeCore

@Suite("Pupil location and shape model")
struct PupilAndShapeTests {
    /// A 120×80 light image with an almond eye (corners at x 20 and 100, y 40), a mid-gray iris of
    /// radius 14 and a dark pupil of radius 6 centred at `centre`.
    func eyeImage(centre: Point2) -> (GrayImage, [Point2]) {
        let contour = [Point2(20, 40), Point2(45, 26), Point2(75, 26), Point2(100, 40), Point2(75, 54), Point2(45, 54)]
        var pixels = [UInt8](repeating: 210, count: 120 * 80)
        for y in 0..<80 {
            for x in 0..<120 {
                let p = Point2(Double(x), Double(y))
                guard PupilLocator.contains(contour, p) else { continue }
                let d = p.distance(to: centre)
                pixels[y * 120 + x] = d <= 6 ? 20 : (d <= 14 ? 90 : 235)
            }
        }
        return (GrayImage(width: 120, height: 80, pixels: pixels), contour)
    }

    @Test("means of gradients finds a dark pupil within 1.5 px", arguments: [Point2(60, 40), Point2(48, 41), Point2(72, 38)])
    func findsPupil(centre: Point2) throws {
        let (image, contour) = eyeImage(centre: centre)
        let pupil = try #require(PupilLocator().locate(in: image, contour: contour))
        #expect(pupil.centre.distance(to: centre) < 1.5, "found \(pupil.centre)")
        // Normalised to the corners: x from 0 (left corner) to 1 (right corner), y below the corner line.
        #expect(abs(pupil.normalized.x - (pupil.centre.x - 20) / 80) < 1e-9)
        #expect(abs(pupil.normalized.y - (pupil.centre.y - 40) / 80) < 1e-9)
    }

    @Test("four centres' vote sums side by side are each exactly the sum one centre at a time gives")
    func sideBySideSums() {
        // Gradient points and unit gradients from a fixed sequence, centres on a row among them
        // (one exactly on a point, where its term is 0).
        var state: UInt64 = 0x9E3779B97F4A7C15
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        var pointX: [Double] = [], pointY: [Double] = [], unitX: [Double] = [], unitY: [Double] = []
        for _ in 0..<157 {
            pointX.append(Double(Int(next() * 30) + 1))
            pointY.append(Double(Int(next() * 12) + 1))
            let angle = next() * 2 * Double.pi
            unitX.append(cos(angle))
            unitY.append(sin(angle))
        }
        let y = pointY[0]
        let centres = SIMD4<Double>(pointX[0], 3, 17, 29)
        let sums = PupilLocator.displacementSums(centreX: centres, centreY: y, pointX, pointY, unitX, unitY)
        for lane in 0..<4 {
            var sum = 0.0
            for i in pointX.indices {
                let dx = pointX[i] - centres[lane], dy = pointY[i] - y
                let length = (dx * dx + dy * dy).squareRoot()
                let dot = (dx * unitX[i] + dy * unitY[i]) / length
                sum += length > 0 && dot > 0 ? dot * dot : 0
            }
            #expect(sums[lane].bitPattern == sum.bitPattern, "lane \(lane): \(sums[lane]) against \(sum)")
        }
    }

    @Test("a shut or tiny eye yields no pupil")
    func noPupil() {
        let image = GrayImage(width: 40, height: 40, pixels: [UInt8](repeating: 128, count: 1600))
        let flat = [Point2(10, 20), Point2(14, 20), Point2(18, 20), Point2(22, 20), Point2(18, 20), Point2(14, 20)]
        #expect(PupilLocator().locate(in: image, contour: flat) == nil)
        let tiny = [Point2(10, 20), Point2(11, 19), Point2(12, 19), Point2(13, 20), Point2(12, 21), Point2(11, 21)]
        #expect(PupilLocator().locate(in: image, contour: tiny) == nil)
    }

    @Test("the similarity fit recovers a known rotation, scale and shift")
    func similarity() {
        let source = [Point2(0, 0), Point2(1, 0), Point2(0, 2), Point2(3, 1)]
        let truth = SimilarityTransform(a: 2 * cos(0.3), b: 2 * sin(0.3), translation: Point2(5, -7))
        let fitted = SimilarityTransform.fit(from: source, to: source.map(truth.apply))
        #expect(abs(fitted.a - truth.a) < 1e-12 && abs(fitted.b - truth.b) < 1e-12)
        #expect(fitted.translation.distance(to: truth.translation) < 1e-12)
    }

    @Test("a mean shape scores itself 1 and places the unit box around its transform")
    func meanShape() {
        let points = (0..<68).map { Point2(0.2 + 0.6 * Double($0 % 10) / 9, 0.15 + 0.7 * Double($0 / 10) / 6) }
        let shape = MeanShape(points: points)
        let transform = SimilarityTransform(a: 150, b: 0, translation: Point2(100, 60))
        let landmarks = FaceLandmarks(points: points.map(transform.apply))
        #expect(abs(shape.confidence(of: landmarks) - 1) < 1e-12)
        let box = shape.box(for: landmarks)
        #expect(abs(box.left - 100) < 1e-9 && abs(box.top - 60) < 1e-9 && abs(box.right - 250) < 1e-9 && abs(box.bottom - 210) < 1e-9)
        // Scrambled points are no face.
        let scrambled = FaceLandmarks(points: landmarks.points.reversed())
        #expect(shape.confidence(of: scrambled) < 0.01)
    }
}

@Suite("Per-frame feature extraction")
struct EyeFeatureExtractorTests {
    /// A frontal face: the six-point model projected, other landmarks filled around it, and eyes
    /// whose lid gap is `gap` × the eye width.
    func face(gap: Double, shift: Double = 0) -> FaceLandmarks {
        var points = (0..<68).map { Point2(300 + Double($0 % 17) * 3 + shift, 200 + Double($0 / 17) * 3) }
        for (eye, (cx, cy)) in [(Eye.right, (280.0, 220.0)), (Eye.left, (360.0, 220.0))] {
            let base = eye.landmarkIndices.lowerBound
            let half = 15.0, lid = gap * 30 / 2
            let contour = [Point2(cx - half, cy), Point2(cx - 5, cy - lid), Point2(cx + 5, cy - lid),
                           Point2(cx + half, cy), Point2(cx + 5, cy + lid), Point2(cx - 5, cy + lid)]
            for (offset, point) in contour.enumerated() { points[base + offset] = Point2(point.x + shift, point.y) }
        }
        return FaceLandmarks(points: points)
    }

    @Test("states go missing → initializing → normal, and motion or low confidence limit tracking")
    func trackingStates() {
        var extractor = EyeFeatureExtractor(intrinsics: CameraIntrinsics(width: 640, height: 480))
        func state(_ face: FaceObservation?, _ t: Double) -> TrackingState {
            extractor.process(frameIndex: 0, timestampSeconds: t, image: nil, face: face).0.trackingState
        }
        let good = FaceObservation(landmarks: face(gap: 0.3), confidence: 0.9, detected: true)
        #expect(state(nil, 0) == .missing)
        #expect(state(good, 0.1) == .initializing)
        #expect(state(good, 0.2) == .initializing)
        #expect(state(good, 0.3) == .initializing)
        #expect(state(good, 0.4) == .normal)
        #expect(state(FaceObservation(landmarks: face(gap: 0.3), confidence: 0.2, detected: false), 0.5) == .lowConfidence)
        #expect(state(FaceObservation(landmarks: face(gap: 0.3, shift: 60), confidence: 0.9, detected: false), 0.6) == .excessiveMotion)
        #expect(TrackingState.normal.eyeTrackingValue == nil)
        #expect(TrackingState.lowConfidence.eyeTrackingValue == "limited.lowConfidence")
    }

    @Test("openness falls and a blink is reported when the lids close")
    func blinkThroughExtractor() {
        var extractor = EyeFeatureExtractor(intrinsics: CameraIntrinsics(width: 640, height: 480))
        var events: [BlinkEvent] = []
        var minimum = 1.0
        for frame in 0..<60 {
            let closed = (30..<36).contains(frame)
            let observation = FaceObservation(landmarks: face(gap: closed ? 0.05 : 0.3), confidence: 0.9, detected: false)
            let (features, event) = extractor.process(frameIndex: frame, timestampSeconds: Double(frame) / 30, image: nil,
                                                      face: observation)
            minimum = min(minimum, features.openness[.left]!)
            if closed { #expect(features.blinking) }
            if let event { events.append(event) }
        }
        #expect(minimum == 0)
        #expect(events.count == 1)
        #expect(events.first?.eyes == .both)
        #expect(abs((events.first?.startSeconds ?? 0) - 1.0) < 1e-9)
        #expect(abs((events.first?.durationSeconds ?? 0) - 0.2) < 1e-9)
    }
}
