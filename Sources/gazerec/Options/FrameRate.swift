import ArgumentParser

/// Frame rates a recording can request.
enum FrameRate: Int, CaseIterable, ExpressibleByArgument {
    case thirty = 30
    case sixty = 60
}
