import Testing
@testable import GazeModel

/// Times as the command line prints them.
@Suite("TextFormat")
struct TextFormatTests {
    @Test("a Unix time prints as an ISO 8601 date")
    func isoTime() {
        // The iOS fixture's beginTime.
        #expect(TextFormat.isoTime(1595626843.445204) == "2020-07-24T21:40:43.445Z")
    }

    @Test("a time in nanoseconds or past year 9999 prints as its number, never as a made-up date")
    func notADate() {
        // The iOS fixture's beginTime in nanoseconds, as another tool writes it.
        #expect(TextFormat.isoTime(1_595_626_843_445_204_000) == "1.595626843445204e+18 s, not a date")
        #expect(TextFormat.isoTime(.infinity) == "inf s, not a date")
    }
}
