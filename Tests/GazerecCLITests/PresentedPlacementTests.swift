import Foundation
import JSONStream
import Testing
import TestSupport

/// `gazerec stimulus` without --rect over sessions whose presentations placed the stimulus
/// differently: one at the stimulus's own aspect, one stretched (as an off-screen player recorded
/// it). The result may not depend on the order the ids are given in.
@Suite("gazerec stimulus: the study's placement from several sessions", .serialized)
struct PresentedPlacementTests {
    @Test("a session whose presentation was stretched is left out, named, whichever order the ids come in",
          .enabled(if: PresentedStimulusTests.ready, PresentedStimulusTests.reason))
    func orderOfIds() throws {
        let (workspace, id, _, _, stimulus) = try PresentedStimulusTests.prepare()
        defer { workspace.folder.remove() }
        // Given a second session: the same recording, its presentations stretched to 4:3 on the screen.
        let document = try String(contentsOfFile: workspace.folder.path("presented.json"), encoding: .utf8)
        let rect = #""rect":{"x":0,"y":40,"width":1280,"height":720}"#
        try #require(document.contains(rect), "the study's rectangle is not in the document as expected")
        let stretchedID = UUID().uuidString
        let stretched = document.replacingOccurrences(of: id, with: stretchedID)
            .replacingOccurrences(of: rect, with: #""rect":{"x":0,"y":40,"width":960,"height":720}"#)
        let path = workspace.folder.path("stretched.json")
        try stretched.write(toFile: path, atomically: true, encoding: .utf8)
        let imported = try workspace.run(["import", path])
        try #require(imported.status == 0, "\(imported.stderr)")
        // When the timeline is asked for with the ids in either order.
        let forward = try workspace.run(["stimulus", "timeline", id, stretchedID, "--stimulus", stimulus])
        let backward = try workspace.run(["stimulus", "timeline", stretchedID, id, "--stimulus", stimulus])
        // Then both analyse the first session alike and name the stretched one, without asking for a rectangle.
        for result in [forward, backward] {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("session \(stretchedID) cannot be analysed: its showing 1 was recorded at a 960×720 points rectangle"),
                    "\(result.stderr)")
            #expect(!result.stderr.contains("give the rectangle"), "\(result.stderr)")
        }
        #expect(forward.stdout == backward.stdout && forward.stdout.contains(id))
    }
}
