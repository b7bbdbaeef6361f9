import Dispatch
import Foundation
import JSONStream
import Recorder
import SessionStore

/// Ctrl-C and SIGTERM ask the recorder to finish; a second Ctrl-C exits at once (data already
/// committed stays).
final class SignalHandling {
    private var sources: [DispatchSourceSignal] = []

    init(stop: StopRequest) {
        // A launcher may have started us with these blocked (test harnesses do); we must hear them.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        var interrupts = 0
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if number == SIGINT {
                    interrupts += 1
                    if interrupts > 1 {
                        TerminalScreen.restoreForExit()
                        _exit(130)
                    }
                }
                stop.request()
            }
            source.resume()
            sources.append(source)
        }
    }

    func restore() {
        sources.forEach { $0.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// For commands that write files through temporaries (exports, plots): Ctrl-C, SIGTERM and
/// SIGHUP remove the half-written temporary files, then end the process as the signal would.
///
/// The handler does it at the moment the signal arrives (unlink and `_exit` are safe there), so a
/// signalled export never goes on to rename its file into place and exit 0.
enum TemporaryFileCleanup {
    nonisolated(unsafe) private static var installed = false

    static func install() {
        guard !installed else { return }
        installed = true
        TemporaryFiles.prepareForSignals()
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&unblock, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for number in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                TemporaryFiles.removeAllFromSignalHandler()
                _exit(128 + number)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(number, &action, nil)
        }
    }
}
