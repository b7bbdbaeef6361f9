import ContentDigest
import Foundation
import Testing

@Suite struct FileDigestTests {
    private static func hex(_ bytes: [UInt8]) -> String {
        let digest = SHA256Digest()
        bytes.withUnsafeBytes { digest.update($0) }
        return SHA256Digest.hex(digest.finish())
    }

    @Test("SHA-256 gives FIPS 180-4's example digests (empty, 'abc', the two-block message, a million a's)")
    func knownDigests() {
        #expect(Self.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(Self.hex([UInt8](repeating: 0x61, count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("a file's digest and size match sha256sum's, read across block boundaries")
    func fileDigest() throws {
        let path = NSTemporaryDirectory() + "gazerec-digest-\(getpid()).bin"
        defer { unlink(path) }
        let bytes = (0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let digest = try FileDigest(path: path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(digest.byteSize == bytes.count)
        #expect(digest.sha256 == String(output.prefix(64)))
    }

    @Test("a missing file is an unreadable error naming it")
    func missingFile() {
        let path = NSTemporaryDirectory() + "gazerec-digest-missing-\(getpid()).bin"
        #expect(throws: ContentDigestError.unreadable(path: path, reason: "No such file or directory")) { try FileDigest(path: path) }
    }
}
