import GazeVision
import Testing

/// The seating advice's words: which way, in the participant's left and right, and figures that
/// never read as the limit they exceed.
@Suite("seating advice wording")
struct SeatingAdviceWordingTests {
    @Test("a head turned says which way (yaw positive: turned to the participant's right) and which way to turn back")
    func yawDirection() {
        let right = SeatingAdvice.faceTheScreen(yawDegrees: 12, pitchDegrees: 0, maximumYaw: 10, maximumPitch: 25).text
        #expect(right == "face the screen: turn your head to your left; it is turned 12° to your right, more than the 10° allowed")
        let left = SeatingAdvice.faceTheScreen(yawDegrees: -14.4, pitchDegrees: 3, maximumYaw: 10, maximumPitch: 25).text
        #expect(left == "face the screen: turn your head to your right; it is turned 14° to your left, more than the 10° allowed")
    }

    @Test("a tilt just past its limit is not written as the limit: 25.3° up, more than the 25° allowed")
    func pitchPastLimit() {
        let up = SeatingAdvice.faceTheScreen(yawDegrees: 0, pitchDegrees: 25.3, maximumYaw: 10, maximumPitch: 25).text
        #expect(up == "face the screen: lower your chin; the head is tilted 25.3° up, more than the 25° allowed")
        let down = SeatingAdvice.faceTheScreen(yawDegrees: 0, pitchDegrees: -31, maximumYaw: 10, maximumPitch: 25).text
        #expect(down == "face the screen: raise your chin; the head is tilted 31° down, more than the 25° allowed")
    }

    @Test("an edge is said with the way the participant moves: the picture's left shows their right")
    func edges() {
        #expect(SeatingAdvice.centre(edge: "left").text.hasPrefix("centre the face: move to your left;"))
        #expect(SeatingAdvice.centre(edge: "right").text.hasPrefix("centre the face: move to your right;"))
        #expect(SeatingAdvice.centre(edge: "top").text.hasPrefix("centre the face: move down a little"))
    }
}
