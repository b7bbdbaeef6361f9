import Foundation
import Testing
import TestSupport
import SessionStore

@Suite("gazerec fixations")
struct FixationsCommandTests {
    @Test("the iOS fixture gives plausible fixations with both methods (documented counts)",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func iosFixture() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        #expect(try Binary.run(["import", Fixtures.iosSession], environment: environment).status == 0)
        let id = "3BE54760-F1E8-4799-A3CB-78806270E72A"
        let idt = try Binary.run(["fixations", id, "--format", "json"], environment: environment)
        #expect(idt.status == 0)
        let fixations = try #require(try JSONValue.parse(Array(idt.stdoutData)).arrayValue)
        #expect(fixations.count == 27)  // docs/Analysis.md
        // Plausible: 80 ms or longer, in time order, near the iPad's screen (ARKit's gaze estimate
        // leaves the display now and then: 4 of the 27 centroids lie just off it).
        var previousEnd = 0.0
        var onScreen = 0
        for fixation in fixations {
            guard case .number(let start)? = fixation["start"], case .number(let end)? = fixation["end"],
                  case .number(let x)? = fixation["x"], case .number(let y)? = fixation["y"] else {
                Issue.record("malformed \(fixation)"); continue
            }
            #expect(end - start >= 0.08 && start >= previousEnd)
            #expect((-600...1800).contains(x) && (-600...1800).contains(y))
            if (0...1194).contains(x) && (0...834).contains(y) || (0...834).contains(x) && (0...1194).contains(y) { onScreen += 1 }
            previousEnd = end
        }
        #expect(onScreen >= 20)
        let ivt = try Binary.run(["fixations", id, "--method", "ivt", "--format", "csv"], environment: environment)
        #expect(ivt.stdout.split(separator: "\n").count == 1 + 15)
        #expect(ivt.stderr.contains("15 fixations (ivt) in 380 samples"))
        #expect(try Binary.run(["fixations", id, "--screen-size-mm", "179x250"], environment: environment).status == 64)
    }
}
