import Foundation
import LabStreaming
import Testing

/// Where liblsl is looked for, and what happens without it.
@Suite("liblsl loading")
struct LabStreamingLibraryTests {
    @Test("without liblsl (the path given points nowhere), loading fails with one line saying how to install it")
    func missingLibrary() throws {
        let path = "/nonexistent-\(UUID().uuidString)/liblsl.so.2"
        do {
            _ = try LabStreamingLibrary.load(environment: ["GAZEREC_LIBLSL": path, "HOME": "/root"])
            Issue.record("loaded liblsl from a path that does not exist")
        } catch let error as LabStreamingError {
            guard case .libraryUnavailable(let tried, _) = error else { Issue.record("\(error)"); return }
            #expect(tried == [path], "an explicit path is the only one tried")
            let message = error.description
            #expect(!message.contains("\n"))
            #expect(message.contains(path) && message.contains("Scripts/setup-lsl.sh") && message.contains("GAZEREC_LIBLSL"))
            #expect(!message.contains("--"), "library messages name no command-line flag")
        }
    }

    @Test("a file that is not a library: the loader's reason")
    func notALibrary() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-liblsl-\(UUID().uuidString).so.2")
        try Data("not a shared object\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect {
            _ = try LabStreamingLibrary.load(environment: ["GAZEREC_LIBLSL": file.path])
        } throws: { error in
            guard case LabStreamingError.libraryUnavailable(_, let reason) = error else { return false }
            return reason.contains(file.path) && reason != file.path
        }
    }

    @Test("looked for: GAZEREC_LIBLSL alone, else the set-up's copy under XDG_DATA_HOME (or ~/.local/share), then the loader's path")
    func candidates() {
        #expect(LabStreamingLibrary.candidatePaths(environment: ["GAZEREC_LIBLSL": "/opt/lsl/liblsl.so.2", "HOME": "/home/a"])
            == ["/opt/lsl/liblsl.so.2"])
        #expect(LabStreamingLibrary.candidatePaths(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/a"])
            == ["/data/gazerec/lib/liblsl.so.2", "liblsl.so.2"])
        #expect(LabStreamingLibrary.candidatePaths(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/a"])
            == ["/home/a/.local/share/gazerec/lib/liblsl.so.2", "liblsl.so.2"])
        #expect(LabStreamingLibrary.candidatePaths(environment: [:]) == ["liblsl.so.2"])
    }

    @Test("the pylsl wheel's liblsl loads, is 1.16 or later, and its clock maps onto Unix time within a millisecond",
          .enabled(if: LabFixtures.available, LabFixtures.missingReason))
    func loadsAndMapsClock() throws {
        let library = try #require(LabFixtures.library)
        #expect(library.version >= 116)
        let clock = LabClock(measuring: library)
        #expect(clock.uncertaintySeconds < 0.001)
        let unix = Date().timeIntervalSince1970
        let lab = library.localClockSeconds()
        #expect(abs(clock.labSeconds(unixSeconds: unix) - lab) < 0.001)
        #expect(clock.unixSeconds(labSeconds: clock.labSeconds(unixSeconds: unix)) == unix)
    }
}
