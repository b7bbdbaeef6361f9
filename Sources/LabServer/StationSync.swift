import Foundation
import SessionStore

/// A station's sessions and calibrations pushed to the lab's server: once, or watching the
/// station's database and pushing each session as its recording ends.
public struct StationSync {
    /// The server's address (a PostgreSQL URI or connection string).
    public let address: String
    /// Whether sessions the server has with other content are overwritten.
    public let replace: Bool
    /// The host name the server records beside each push.
    public let host: String

    public init(address: String, replace: Bool, host: String = ProcessInfo.processInfo.hostName) {
        self.address = address
        self.replace = replace
        self.host = host
    }

    /// What happened to one session of a push, as it happens.
    public enum Event {
        /// The server committed it (added or replaced) or already had it unchanged.
        case pushed(id: String, LabDatabase.Outcome)
        /// Skipped: it is still being recorded.
        case stillRecording(id: String)
        /// Not sent: its recorder died and it was never closed.
        case unclosed(id: String)
        /// The server refused it; the rest go on.
        case refused(id: String, LabServerError)
        /// Not sent: its stored rows are damaged (`StoreError.damagedSession`), or reading them
        /// failed; the rest go on.
        case unreadable(id: String, StoreError)
        /// The server refused a calibration: it was withdrawn.
        case calibrationWithdrawn(id: String, LabServerError)
    }

    /// What one push did: only what the server committed counts as pushed.
    public struct Tally: Sendable, Equatable {
        public var sent = 0
        public var unchanged = 0
        public var stillRecording: [String] = []
        public var failures = 0
        /// The sessions not sent because their stored rows are damaged or could not be read.
        public var unreadable: [String] = []
        public var calibrationsSent = 0
        public var calibrationsUnchanged = 0
        public var withdrawnCalibrations = 0
        public init() {}
    }

    /// Pushes every calibration, then `sessions`, telling each session's `Event` as it happens. A
    /// lost connection ends the push (thrown); a refused session, a damaged one (its transaction on
    /// the server rolled back, nothing of it kept) or a withdrawn calibration is counted and told,
    /// and the rest go on. With
    /// `quietly`, sessions still being recorded or left unclosed are neither told nor failures (a
    /// watch pushes them later).
    public func push(_ sessions: [SessionSummary], from database: SessionDatabase, to server: LabDatabase,
                     recordingSessionID running: String?, quietly: Bool = false, report: (Event) -> Void) throws -> Tally {
        var tally = Tally()
        for calibration in try database.calibrations() {
            let document = try database.calibration(id: calibration.id).document
            do {
                let outcome = try server.pushCalibration(id: calibration.id, document: Data(document.utf8), host: host,
                                                         replace: replace)
                if outcome == .unchanged { tally.calibrationsUnchanged += 1 } else { tally.calibrationsSent += 1 }
            } catch let error as LabServerError {
                guard case .withdrawn = error else { throw error }
                tally.withdrawnCalibrations += 1
                tally.failures += 1
                report(.calibrationWithdrawn(id: calibration.id, error))
            }
        }
        for summary in sessions {
            let id = summary.header.id
            if id == running {
                if !quietly { report(.stillRecording(id: id)) }
                tally.stillRecording.append(id)
                continue
            }
            if summary.header.endTimeSeconds == nil {
                if !quietly { report(.unclosed(id: id)) }
                tally.failures += quietly ? 0 : 1
                continue
            }
            do {
                let outcome = try server.push(sessionID: id, from: database, host: host, replace: replace)
                report(.pushed(id: id, outcome))
                if outcome == .unchanged { tally.unchanged += 1 } else { tally.sent += 1 }
            } catch let error as LabServerError {
                if case .connectionLost = error { throw error }
                tally.failures += 1
                report(.refused(id: id, error))
            } catch let error as StoreError {
                // A damaged session is this session's failure, not the push's: the sound ones after it still go.
                tally.failures += 1
                tally.unreadable.append(id)
                report(.unreadable(id: id, error))
            }
        }
        return tally
    }

    /// What a watch needs from the station, asked anew each round.
    public struct Station {
        /// The station's database, nil while it does not exist.
        public var open: () throws -> SessionDatabase?
        /// The session being recorded into it now, if any.
        public var recordingSessionID: () -> String?
        public init(open: @escaping () throws -> SessionDatabase?, recordingSessionID: @escaping () -> String?) {
            self.open = open
            self.recordingSessionID = recordingSessionID
        }
    }

    /// Every `intervalSeconds`, pushes the finished sessions begun at or after `sinceSeconds` not
    /// pushed yet in this watch, until `shouldStop`. A server that goes away (`connectionLost`,
    /// `cannotConnect`) is told to `unreachable` and tried again next round; other errors end it.
    public func watch(_ station: Station, sinceSeconds: Double = -.infinity, intervalSeconds: Double = 2,
                      shouldStop: () -> Bool, unreachable: (LabServerError) -> Void, report: (Event) -> Void) throws {
        var done: Set<String> = []
        var server: LabDatabase?
        while !shouldStop() {
            do {
                if let database = try station.open() {
                    let running = station.recordingSessionID()
                    let ready = try database.summaries().filter {
                        $0.header.endTimeSeconds != nil && $0.header.id != running && !done.contains($0.header.id)
                            && $0.header.beginTimeSeconds >= sinceSeconds
                    }
                    if !ready.isEmpty {
                        let connected = try server ?? LabDatabase(address: address)
                        server = connected
                        _ = try push(ready, from: database, to: connected, recordingSessionID: running, quietly: true, report: report)
                        done.formUnion(ready.map(\.header.id))
                    }
                }
            } catch let error as LabServerError {
                switch error {
                case .connectionLost, .cannotConnect:
                    unreachable(error)
                    server = nil
                default:
                    throw error
                }
            }
            for _ in 0..<Int((intervalSeconds * 10).rounded()) where !shouldStop() { usleep(100_000) }
        }
    }
}
