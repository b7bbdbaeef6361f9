import GazeModel

/// The expression shapes' formulas (docs/BlendShapes.md): displacements of the frontal face from
/// the neutral face, in millimetres of the mean face, each divided by the displacement that reads 1.
extension BlendShapeEstimator {
    /// Millimetres of displacement that read 1 (see docs/BlendShapes.md for how each was chosen).
    static let smileMillimetres = 10.0, frownMillimetres = 6.0, browDownMillimetres = 4.0
    static let browUpMillimetres = 5.0, squintMillimetres = 2.5, narrowingMillimetres = 8.0
    static let openingMillimetres = 10.0
    /// How far the mouth corners sink per millimetre the lips part (measured on the shared clips: 0.27–0.41).
    static let cornerDropPerOpening = 0.45

    /// The landmarks of one side of the face: participant's left (image right) or right.
    struct Side {
        let corner: Int, brow: [Int], outerBrow: [Int], lowerLid: [Int]
        static let left = Side(corner: 54, brow: Array(22...26), outerBrow: [25, 26], lowerLid: [46, 47])
        static let right = Side(corner: 48, brow: Array(17...21), outerBrow: [17, 18], lowerLid: [40, 41])
    }

    /// The coefficient of an expression shape for `frontal` against `neutral`.
    static func expression(_ name: BlendShapeName, _ frontal: FrontalFace, neutral: FrontalFace) -> Double {
        /// Mean downward displacement (mm) of the points `indices` from the neutral face.
        func drop(_ indices: [Int]) -> Double {
            indices.reduce(0) { $0 + frontal[$1].y - neutral[$1].y } / Double(indices.count)
        }
        let side = name.rawValue.hasSuffix("_L") ? Side.left : Side.right
        let opening = Swift.max(0, frontal[66].distance(to: frontal[62]) - neutral[66].distance(to: neutral[62]))
        let narrowing = clamp((neutral[54].distance(to: neutral[48]) - frontal[54].distance(to: frontal[48]))
                              / narrowingMillimetres)
        switch name {
        case .mouthSmileLeft, .mouthSmileRight:
            return clamp(-drop([side.corner]) / smileMillimetres)
        case .mouthFrownLeft, .mouthFrownRight:
            return clamp((drop([side.corner]) - cornerDropPerOpening * opening) / frownMillimetres)
        case .mouthPucker:
            return narrowing * (1 - clamp(opening / openingMillimetres))
        case .mouthFunnel:
            return narrowing * clamp(opening / openingMillimetres)
        case .browDownLeft, .browDownRight:
            return clamp(drop(side.brow) / browDownMillimetres)
        case .browInnerUp:
            return clamp(-drop([21, 22]) / browUpMillimetres)
        case .browOuterUpLeft, .browOuterUpRight:
            return clamp(-drop(side.outerBrow) / browUpMillimetres)
        case .eyeSquintLeft, .eyeSquintRight:
            return clamp(-drop(side.lowerLid) / squintMillimetres)
        default:
            return 0
        }
    }
}
