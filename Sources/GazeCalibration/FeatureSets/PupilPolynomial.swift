extension GazeFeatureSet {
    /// Both eyes' pupil positions combined, quadratic, plus head yaw, pitch and position, linear:
    /// 6 features, 10 terms (`GazeMapping.termNames`). gazerec's mapping before eye patches;
    /// calibrations made with it still apply. Its terms are built by `GazeMapping`.
    public static let pupilPolynomial = GazeFeatureSet(name: "pupilPolynomial", featureCount: GazeMapping.featureCount,
                                                       features: nil)
}
