import Foundation
import GazeModel
import SessionStore
import Testing
import TestSupport

/// Presentations pushed to a lab server travel in the session's document and read back through
/// `--database postgres://…` as the station stored them, for export and for the stimulus commands.
@Suite("Presentations pushed to a lab server", .serialized)
struct PresentationPushTests {
    @Test("a recording's presentations read back from the server: export byte for byte, CSV stimulus columns, timeline without --rect",
          .enabled(if: LabServerTests.admin != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"),
                   "needs a PostgreSQL server (eval \"$(Scripts/setup-postgres.sh)\") and ffmpeg"))
    func pushed() throws {
        let lab = try LabServerTests.Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let video = folder.path("clip.mkv")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=640x360:r=30:d=6", "-c:v", "ffv1", video])
        try #require(made.status == 0, "\(made.stderr)")
        let sha256 = String(try Binary.runProcess("/usr/bin/sha256sum", [video]).stdout.prefix(64))

        // A station's recording written as the recorder writes one: gaze at 60 Hz for 20 s on the
        // stimulus's centre, the presentations recorded at their onsets and ends.
        let path = folder.path("station.sqlite"), begin = 1_790_000_000.0, id = UUID().uuidString
        let store = try SessionDatabase(path: path)
        let writer = try SessionWriter(database: store, header: SessionHeader(
            id: id, appID: "viewer", beginTimeSeconds: begin, endTimeSeconds: nil,
            deviceInfo: DeviceInfo(model: "test", screenWidth: 1280, screenHeight: 800, systemName: "Linux", systemVersion: "6")),
                                       blendShapeNames: [], recorderPID: 1)
        let presentations = StudyPresentations.presentations(begin: begin, fileName: "clip.mkv", sha256: sha256)
        var batch = SampleBatchToAppend()
        batch.gaze = (0..<1200).map { GazeSample(timestampSeconds: begin + Double($0) / 60, x: 640, y: 400, orientation: 3) }
        batch.presentations = presentations.map { var onset = $0; (onset.playback, onset.events, onset.offsetSeconds, onset.ending) = ([], [], nil, nil); return onset }
        try writer.append(batch)
        for presentation in presentations { try writer.record(presentation: presentation) }
        try writer.close(endTimeSeconds: begin + 20, gazerecExtension: nil)
        let environment = ["GAZEREC_DATABASE": path]

        let pushed = try Binary.run(["push", lab.station, "--all"], environment: environment)
        try #require(pushed.status == 0, "\(pushed.stderr)")
        let local = try Binary.run(["export", id], environment: environment)
        let remote = try Binary.run(["--database", lab.analysis, "export", id])
        #expect(remote.status == 0 && remote.stdoutData == local.stdoutData, "\(remote.stderr)")
        #expect(local.stdout.contains(#""presentations":[{"index":0,"label":"clip","kind":"video","fileName":"clip.mkv""#))
        let csv = try Binary.run(["--database", lab.analysis, "export", id, "--format", "csv"])
        #expect(csv.stdoutData == (try Binary.run(["export", id, "--format", "csv"], environment: environment)).stdoutData)
        #expect(csv.stdout.prefix(while: { $0 != "\n" }).hasSuffix(",stimulus,stimulusSeconds"))

        let timeline = try Binary.run(["--database", lab.analysis, "stimulus", "timeline", id, "--stimulus", video, "--showing", "2"])
        try #require(timeline.status == 0, "\(timeline.stderr)")
        // Second 2 of the second showing: 1 s played, 1.5 s paused, 1 s after the seek back, at 60 Hz.
        let rows = timeline.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.dropFirst().map { $0[3] } == ["60", "120", "210", "90", "30"], "\(timeline.stdout)")
    }
}
