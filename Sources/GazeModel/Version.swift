/// gazerec's version: printed by `--version`, recorded with every session and calibration.
public enum GazerecVersion {
    public static let current = "0.1.0"
}
