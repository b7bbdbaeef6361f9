import GazeModel
import JSONStream
import Testing
@testable import SessionStore

/// The one codec of the `"gazerec"` object: typed members read and written back.
@Suite("The \"gazerec\" codec")
struct SessionExtensionCodecTests {
    static let stored = #"{"formatVersion":1,"reanalysis":{"at":1795599004.123,"version":"0.9.0","video":"/data/s.mkv","#
        + #""framesWithFace":498,"detectorRuns":12},"endedBy":"x"}"#

    @Test("reanalysis reads typed; unchanged it is written back as read, changed its members in order")
    func reanalysis() throws {
        // Given a stored extension with a reanalysis member
        let read = try #require(SessionExtension(storedText: Self.stored))
        // Then it is typed
        #expect(read.reanalysis == ReanalysisFacts(atSeconds: 1795599004.123, version: "0.9.0", videoPath: "/data/s.mkv",
                                                   framesWithFace: 498, detectorRuns: 12))
        #expect(read.storedText == Self.stored)
        // When it changes, it is encoded anew in place, members in the order a re-analysis writes them
        var changed = read
        changed.reanalysis?.detectorRuns = 13
        #expect(changed.storedText == Self.stored.replacingOccurrences(of: #""detectorRuns":12"#, with: #""detectorRuns":13"#))
        // A re-analysis that recorded no figures has none.
        changed.reanalysis = ReanalysisFacts(atSeconds: 2, version: "1", videoPath: "v")
        #expect(changed.storedText == #"{"formatVersion":1,"reanalysis":{"at":2,"version":"1","video":"v"},"endedBy":"x"}"#)
    }

    @Test("a reanalysis member of another shape is kept as it was, untyped")
    func reanalysisOfAnotherShape() throws {
        let text = #"{"reanalysis":{"at":"yesterday","video":3}}"#
        let read = try #require(SessionExtension(storedText: text))
        #expect(read.reanalysis == nil)
        #expect(read[SessionExtension.Name.reanalysis] == .other(json: #"{"at":"yesterday","video":3}"#))
        #expect(read.storedText == text)
    }
}
