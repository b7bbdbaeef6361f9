import Foundation
import JSONStream
import Testing
import TestSupport

/// The participant's guide when nothing is found as the picture stands (a turned camera, a face too
/// far away), and its directions in the participant's own left and right.
@Suite("gazerec position: what to do when no face is found, and which way", .serialized)
struct PositionGuidanceTests {
    typealias P = PositionCommandTests

    static func advice(_ lines: [JSONValue]) -> [String] { lines.map { P.text($0["advice"]) } }

    @Test("the picture upside down: position says it is turned and names --rotate 180; start and analyze warn that the face is not upright; with --rotate 180 it is in range",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason))
    func upsideDown() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let turned = try P.copy(P.clip, "hflip,vflip", in: folder, name: "upside-down.mp4")
        let (lines, status, stderr) = try P.position(turned)
        #expect(status == 1)
        #expect(lines.count == 3 && lines.allSatisfy { $0["face"] == .bool(false) })
        // The first second's look comes at its end: every line says it.
        #expect(Self.advice(lines).allSatisfy { $0.hasPrefix("the picture is turned") && $0.hasSuffix("(--rotate 180)") },
                "\(Self.advice(lines))")
        #expect(stderr.contains("not seated after 3.0 s: the picture is turned"), "\(stderr)")
        let rotated = try P.position(turned, ["--rotate", "180", "--duration", "3"])
        #expect(rotated.status == 0, "\(rotated.stderr)")

        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let recorded = try Binary.run(["start", "--input", turned, "--as-fast-as-possible", "--calibration", "none"],
                                      environment: environment)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stderr.contains("the face is not upright") && recorded.stderr.contains("turned 180° clockwise"),
                "\(recorded.stderr)")
        let analysed = try Binary.run(["analyze", "--input", turned])
        #expect(analysed.status == 0, "\(analysed.stderr)")
        #expect(analysed.stderr.contains("the face is not upright") && analysed.stderr.contains("(--rotate 180)"), "\(analysed.stderr)")
    }

    @Test("the picture turned by 90°: position says it is turned and names the --rotate that turns it back",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason))
    func sideways() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // transpose=1: turned 90° clockwise; 270° more turns it back.
        let turned = try P.copy(P.clip, "transpose=1", in: folder, name: "sideways.mp4")
        let (lines, status, _) = try P.position(turned)
        #expect(status == 1)
        #expect(!lines.isEmpty && Self.advice(lines).allSatisfy { $0.hasPrefix("the picture is turned") && $0.hasSuffix("(--rotate 270)") },
                "\(Self.advice(lines))")
        #expect(try P.position(turned, ["--rotate", "270", "--duration", "3"]).status == 0)
    }

    @Test("a face too far to be found (a third of its size): come closer; at half its size: come closer, or move closer once found",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason))
    func tooFarToFind() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let third = try P.copy(P.clip, "scale=134:100,pad=400:300:133:100:black", in: folder, name: "third.mp4")
        let far = try P.position(third)
        #expect(far.status == 1 && far.lines.allSatisfy { $0["face"] == .bool(false) })
        #expect(Self.advice(far.lines).allSatisfy { $0.contains("come closer") }, "\(Self.advice(far.lines))")
        let half = try P.copy(P.clip, "scale=200:150,pad=400:300:100:75:black", in: folder, name: "half.mp4")
        let nearer = try P.position(half)
        #expect(nearer.status == 1)
        #expect(Self.advice(nearer.lines).allSatisfy { $0.contains("come closer") || $0.hasPrefix("move closer") },
                "\(Self.advice(nearer.lines))")
    }

    @Test("the participant's left and right: a face near the picture's left edge is told to move to their left, the same on a mirrored copy turned back with --mirror; a head turned is told which way",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason))
    func participantsSides() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mirrored = try P.copy(P.clip, "crop=260:300:140:0,hflip", in: folder, name: "mirrored.mp4")
        let (lines, _, _) = try P.position(mirrored, ["--mirror", "--duration", "3"])
        #expect(!lines.isEmpty && Self.advice(lines).allSatisfy { $0.hasPrefix("centre the face: move to your left") },
                "\(Self.advice(lines))")
        // As the mirrored picture stands (no --mirror), its right edge: the other way.
        let unturned = try P.position(mirrored, ["--duration", "3"])
        #expect(Self.advice(unturned.lines).allSatisfy { $0.hasPrefix("centre the face: move to your right") },
                "\(Self.advice(unturned.lines))")
    }
}
