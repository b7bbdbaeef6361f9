import Foundation
import GazeModel
import Testing
import TestSupport
@testable import Recorder

/// The status a running recorder publishes for other processes.
@Suite("Recorder status")
struct RecorderStatusTests {
    func status(_ state: RecorderStatus.State) -> RecorderStatus {
        RecorderStatus(pid: 42, sessionID: "S", source: "/dev/video0", elapsedSeconds: 1.5, frames: 45, framesWithFace: 40,
                       achievedFramesPerSecond: 30, droppedFrames: 0, blinks: 1, trackingState: state, updatedAt: 1_790_000_000)
    }

    @Test("the tracking state is written as the state's name or 'ended', and read back as it was",
          arguments: [RecorderStatus.State.ended] + TrackingState.allCases.map { .frame($0) })
    func trackingState(_ state: RecorderStatus.State) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        status(state).write(databasePath: database)
        let text = try String(contentsOfFile: RecorderLock.statusPath(databasePath: database), encoding: .utf8)
        let name: String
        switch state {
        case .ended: name = "ended"
        case .frame(let tracking): name = tracking.rawValue
        }
        #expect(text.contains(#""trackingState":"\#(name)""#))
        #expect(RecorderStatus.read(databasePath: database) == status(state))
    }

    @Test("a status whose tracking state is no state is not read")
    func unknownState() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        status(.ended).write(databasePath: database)
        let path = RecorderLock.statusPath(databasePath: database)
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\"ended\"", with: "\"asleep\"")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(RecorderStatus.read(databasePath: database) == nil)
    }
}
