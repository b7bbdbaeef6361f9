import CLibCrypto
import Foundation

/// SHA-256 (FIPS 180-4) through OpenSSL's EVP interface, which uses the CPU's SHA instructions
/// where it has them: one implementation for every hash gazerec takes (a presented stimulus, a
/// `stimuli/` folder's files, a pushed document).
public final class SHA256Digest {
    private let context: OpaquePointer

    public init() {
        context = EVP_MD_CTX_new()
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count > 0 { EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) }
    }

    public func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest; the object is spent afterwards.
    public func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest
    }

    /// `bytes` as lowercase hexadecimal, two digits a byte.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * bytes.count)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }
}

/// A file's size and SHA-256: how a stimulus is recognised under another name or in another folder.
public struct FileDigest: Sendable, Equatable {
    /// The file's size in bytes.
    public var byteSize: Int
    /// Lowercase hexadecimal SHA-256 of its bytes.
    public var sha256: String

    public init(byteSize: Int, sha256: String) {
        self.byteSize = byteSize
        self.sha256 = sha256
    }

    /// The digest of the file at `path`, read in 1 MiB blocks.
    public init(path: String) throws(ContentDigestError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        let digest = SHA256Digest()
        var size = 0
        while true {
            let block: Data
            do {
                guard let read = try handle.read(upToCount: 1 << 20), !read.isEmpty else { break }  // nil or empty: the end
                block = read
            } catch {
                throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
            }
            size += block.count
            digest.update(block)
        }
        byteSize = size
        sha256 = SHA256Digest.hex(digest.finish())
    }
}

/// Why a digest could not be taken.
public enum ContentDigestError: Error, Equatable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read \(path) to take its SHA-256: \(reason)"
        }
    }
}
