import ArgumentParser

/// A physical size in millimetres, `WxH`.
struct MillimetreSize: ExpressibleByArgument {
    var width: Double
    var height: Double

    init?(argument: String) {
        guard let size = try? Self.parse(argument) else { return nil }
        self = size
    }

    private init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// The size `text` gives, or an error saying what is wrong with it (the options' `transform`).
    static func parse(_ text: String) throws -> MillimetreSize {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]), width.isFinite, height.isFinite else {
            throw ValidationError("write the width and height in millimetres as WxH, e.g. 531x299")
        }
        guard width > 0, height > 0 else {
            throw ValidationError("a screen's width and height are more than 0 mm; give the visible area's size, e.g. 531x299")
        }
        return MillimetreSize(width: width, height: height)
    }
}
