import ArgumentParser

/// UIInterfaceOrientation names, as the session format stores them (raw values 0–4).
enum Orientation: String, CaseIterable, ExpressibleByArgument {
    case unknown, portrait, portraitUpsideDown, landscapeRight, landscapeLeft

    var rawNumber: Int { Self.allCases.firstIndex(of: self)! }
}
