/// What gazerec keeps of a frame's face for gaze mapping: the 68 landmarks after stabilisation and
/// a small gray patch of each eye, aligned to its corners.
///
/// Calibrations map these (with the head pose) to screen points, and every frame stores them, so
/// a session can be mapped again with another calibration to exactly the gaze a live recording
/// with that calibration would have given.
///
/// Landmarks are dlib's 68 points (iBUG 300-W order) in image pixels, sub-pixel, as `Float`.
/// Each patch is `patchWidth` × `patchHeight` 8-bit gray pixels, rows top to bottom, sampled in the
/// eye's own frame: the patch's width spans the eye from the corner on the image's left to the
/// one on its right (pixel centres at (i + ½)/width of the way), its height spans half that
/// distance centred on the corners' midpoint, rows running down the perpendicular; bilinear
/// samples rounded to the nearest level. The participant's left eye's patch comes first.
public struct EyeAppearance: Sendable, Equatable {
    public static let landmarkCount = 68
    public static let patchWidth = 16
    public static let patchHeight = 8
    public static let patchPixels = patchWidth * patchHeight
    /// Format of `encoded`: 1.
    public static let encodingVersion: UInt8 = 1
    /// Bytes of `encoded`: the version, the landmarks as little-endian IEEE 754 single precision, the patches.
    public static let encodedCount = 1 + 4 * 2 * landmarkCount + 2 * patchPixels

    /// x0, y0, x1, y1, … in pixels (136 values).
    public var landmarks: [Float]
    /// The participant's left eye's patch, then the right's (2 × 128 bytes).
    public var patches: [UInt8]

    public init(landmarks: [Float], patches: [UInt8]) {
        precondition(landmarks.count == 2 * Self.landmarkCount && patches.count == 2 * Self.patchPixels)
        self.landmarks = landmarks
        self.patches = patches
    }

    /// The patch of `eye` (128 bytes, rows top to bottom).
    public func patch(_ eye: Eye) -> ArraySlice<UInt8> {
        eye == .left ? patches[0..<Self.patchPixels] : patches[Self.patchPixels..<(2 * Self.patchPixels)]
    }

    /// Landmark `index` in pixels.
    public func landmark(_ index: Int) -> Point2 {
        Point2(Double(landmarks[2 * index]), Double(landmarks[2 * index + 1]))
    }

    /// The stored form (801 bytes): exact, so a stored frame maps to the gaze its live frame did.
    public var encoded: [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(Self.encodedCount)
        bytes.append(Self.encodingVersion)
        for value in landmarks {
            let bits = value.bitPattern
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
        }
        bytes += patches
        return bytes
    }

    /// Reads the stored form; nil when it is not one (wrong length or version, or a landmark
    /// that is not a finite number).
    public init?(encoded bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard bytes.count == Self.encodedCount, bytes[0] == Self.encodingVersion else { return nil }
        var landmarks = [Float]()
        landmarks.reserveCapacity(2 * Self.landmarkCount)
        for index in 0..<(2 * Self.landmarkCount) {
            let offset = 1 + 4 * index
            let bits = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                | UInt32(bytes[offset + 3]) << 24
            let value = Float(bitPattern: bits)
            guard value.isFinite else { return nil }
            landmarks.append(value)
        }
        self.init(landmarks: landmarks, patches: Array(bytes[(1 + 8 * Self.landmarkCount)...]))
    }
}
