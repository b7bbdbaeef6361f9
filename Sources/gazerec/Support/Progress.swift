import Foundation

/// Progress for long runs on stderr: a rewritten line on a terminal, a line every 10 % otherwise.
final class Progress {
    private let total: Int
    private let enabled: Bool
    private let terminal = Console.stderrIsTerminal
    private var lastPrinted = DispatchTime.now().uptimeNanoseconds
    private var lastDecile = 0
    private var printedAny = false

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    func update(_ done: Int) {
        guard enabled, total >= 500 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        if terminal {
            guard now - lastPrinted > 200_000_000 else { return }
            lastPrinted = now
            Console.write("\rgazerec: frame \(done) of ~\(total) (\(min(100, done * 100 / total)) %)")
            printedAny = true
        } else {
            let decile = done * 10 / total
            guard decile > lastDecile, decile < 10 else { return }
            lastDecile = decile
            Console.note("frame \(done) of ~\(total) (\(decile * 10) %)")
        }
    }

    func finish() {
        if printedAny { Console.write("\r\u{1B}[K") }
    }
}
