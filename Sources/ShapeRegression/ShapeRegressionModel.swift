/// A face box as dlib's shape predictor takes it: inclusive pixel corners.
public struct RegressionBox: Sendable, Equatable {
    public var left: Int
    public var top: Int
    public var right: Int
    public var bottom: Int

    public init(left: Int, top: Int, right: Int, bottom: Int) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }
}

/// A gray image seen without copying: `height` rows of `width` bytes, rows `stride` bytes apart.
/// Valid only while the memory it points to is.
public struct GrayImageView {
    public let pixels: UnsafePointer<UInt8>
    public let width: Int
    public let height: Int
    public let stride: Int

    public init(pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) {
        precondition(width > 0 && height > 0 && stride >= width)
        self.pixels = pixels
        self.width = width
        self.height = height
        self.stride = stride
    }
}

/// dlib's 68-point face landmark model — an ensemble of regression trees in cascades (Kazemi &
/// Sullivan 2014) — read from dlib's `.dat` file and evaluated here, keeping the sub-pixel
/// positions dlib rounds away.
///
/// What a fit computes is dlib's `shape_predictor::operator()` step for step, in the same
/// floating-point types and order: per cascade, the similarity between the mean shape and the
/// current shape places each of the cascade's feature pixels relative to its anchor landmark;
/// the pixels are read (rounded to the nearest pixel, 0 outside the image); every tree walks its
/// splits (pixel difference above the threshold: left child) to a leaf whose offsets are added
/// to the shape. dlib then rounds each landmark to whole pixels; `fit` returns them unrounded, so
/// rounding its result gives dlib's landmarks.
///
/// Each tree's leaf is prefetched into the second-level cache as its walk ends and added, one
/// vector add per tree, twelve trees later, over a flat leaf table (leaves padded to whole cache
/// lines). THREAD SAFETY: immutable after loading; any number of threads may fit at once.
public final class ShapeRegressionModel: @unchecked Sendable {
    /// Landmarks per shape (68 for dlib's face model).
    public let partCount: Int
    /// The mean shape where every fit starts, box-relative ((0, 0) top-left, (1, 1) bottom-right
    /// corner of the face box), x0, y0, x1, y1, …
    public let meanShape: [Float]
    public let cascadeCount: Int
    public let treesPerCascade: Int
    public let treeDepth: Int
    public let featurePixelsPerCascade: Int

    let splitsPerTree: Int
    let leavesPerTree: Int
    let shapeLength: Int
    /// Floats from one leaf to the next: `shapeLength` rounded up to a 64-byte cache line, so
    /// each leaf starts a line and takes whole lines (136 offsets: 9 lines, where unpadded ones
    /// straddle 9 or 10).
    let leafStride: Int
    /// Per cascade and feature pixel: the anchor landmark.
    let anchors: UnsafeMutableBufferPointer<Int32>
    /// Per cascade and feature pixel: its offset (x, y) from the anchor in mean-shape units.
    let deltas: UnsafeMutableBufferPointer<Float>
    /// Per cascade, tree and split: the two feature pixels (low and high 16 bits).
    let splitPixels: UnsafeMutableBufferPointer<UInt32>
    let splitThresholds: UnsafeMutableBufferPointer<Float>
    /// Per cascade, tree and leaf: `shapeLength` offsets, then zeros up to `leafStride`; the
    /// table starts on a cache line.
    let leaves: UnsafeMutableBufferPointer<Float>

    /// Reads the model at `path` (dlib's `shape_predictor` serialization, version 1).
    public convenience init(contentsOf path: String) throws(ShapeModelError) {
        let bytes = try readFile(path)
        try self.init(bytes: bytes, path: path)
    }

    /// Reads a model from its serialized bytes; `path` names it in errors.
    public init(bytes: [UInt8], path: String) throws(ShapeModelError) {
        let result: Result<Parsed, ShapeModelError> = bytes.withUnsafeBufferPointer { buffer in
            var reader = DlibArchiveReader(bytes: buffer, path: path)
            do throws(ShapeModelError) {
                return .success(try Parsed(&reader))
            } catch {
                return .failure(error)
            }
        }
        let model = try result.get()
        partCount = model.meanShape.count / 2
        meanShape = model.meanShape
        cascadeCount = model.cascadeCount
        treesPerCascade = model.treesPerCascade
        treeDepth = model.depth
        featurePixelsPerCascade = model.pixelsPerCascade
        splitsPerTree = (1 << model.depth) - 1
        leavesPerTree = 1 << model.depth
        shapeLength = model.meanShape.count
        leafStride = Parsed.leafStride(shapeLength)
        anchors = model.anchors
        deltas = model.deltas
        splitPixels = model.splitPixels
        splitThresholds = model.splitThresholds
        leaves = model.leaves
    }

    deinit {
        anchors.deallocate()
        deltas.deallocate()
        splitPixels.deallocate()
        splitThresholds.deallocate()
        Parsed.deallocateLeaves(leaves)
    }

    /// The whole file, parsed into flat tables.
    private struct Parsed {
        var meanShape: [Float] = []
        var cascadeCount = 0
        var treesPerCascade = 0
        var depth = 0
        var pixelsPerCascade = 0
        var anchors: UnsafeMutableBufferPointer<Int32>
        var deltas: UnsafeMutableBufferPointer<Float>
        var splitPixels: UnsafeMutableBufferPointer<UInt32>
        var splitThresholds: UnsafeMutableBufferPointer<Float>
        var leaves: UnsafeMutableBufferPointer<Float>

        init(_ reader: inout DlibArchiveReader) throws(ShapeModelError) {
            anchors = .allocate(capacity: 0)
            deltas = .allocate(capacity: 0)
            splitPixels = .allocate(capacity: 0)
            splitThresholds = .allocate(capacity: 0)
            leaves = Self.allocateLeaves(0)
            do {
                try read(&reader)
            } catch {
                anchors.deallocate()
                deltas.deallocate()
                splitPixels.deallocate()
                splitThresholds.deallocate()
                Self.deallocateLeaves(leaves)
                throw error
            }
        }

        static func leafStride(_ shapeLength: Int) -> Int { (shapeLength + 15) / 16 * 16 }

        /// Room for `count` floats starting on a 64-byte cache line (uninitialised).
        static func allocateLeaves(_ count: Int) -> UnsafeMutableBufferPointer<Float> {
            let raw = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(count, 1) * MemoryLayout<Float>.stride, alignment: 64)
            return UnsafeMutableBufferPointer(start: raw.bindMemory(to: Float.self, capacity: Swift.max(count, 1)), count: count)
        }

        static func deallocateLeaves(_ leaves: UnsafeMutableBufferPointer<Float>) {
            UnsafeMutableRawPointer(leaves.baseAddress!).deallocate()
        }

        private mutating func read(_ reader: inout DlibArchiveReader) throws(ShapeModelError) {
            let version = try reader.signed()
            guard version == 1 else { throw reader.error("shape predictor version \(version), not 1") }
            meanShape = try reader.floatColumn()
            guard meanShape.count >= 2, meanShape.count % 2 == 0 else {
                throw reader.error("a mean shape of \(meanShape.count) coordinates")
            }
            try readForests(&reader)
            try readAnchors(&reader)
            try readDeltas(&reader)
            // Every split must name a feature pixel of its cascade.
            for index in 0..<splitPixels.count {
                let pair = splitPixels[index]
                guard Int(pair & 0xFFFF) < pixelsPerCascade, Int(pair >> 16) < pixelsPerCascade else {
                    throw reader.error("a split reads feature pixel \(max(pair & 0xFFFF, pair >> 16)) of \(pixelsPerCascade)")
                }
            }
            guard reader.isAtEnd else { throw reader.error("unexpected bytes after the model") }
        }

        /// The forests: every cascade must have the same number of full trees of one depth, so they
        /// fit one flat table.
        private mutating func readForests(_ reader: inout DlibArchiveReader) throws(ShapeModelError) {
            cascadeCount = try reader.count(atMost: 1000, "a cascade count")
            guard cascadeCount > 0 else { throw reader.error("no cascades") }
            for cascade in 0..<cascadeCount {
                let trees = try reader.count(atMost: 100_000, "a tree count")
                if cascade == 0 {
                    guard trees > 0 else { throw reader.error("a cascade without trees") }
                    treesPerCascade = trees
                } else if trees != treesPerCascade {
                    throw reader.error("cascades of \(treesPerCascade) and \(trees) trees")
                }
                for tree in 0..<trees { try readTree(&reader, cascade: cascade, tree: tree) }
            }
        }

        /// One tree: its splits (feature pixel pairs and thresholds) and its leaves, each padded to
        /// the leaf stride.
        private mutating func readTree(_ reader: inout DlibArchiveReader, cascade: Int, tree: Int) throws(ShapeModelError) {
            let shapeLength = meanShape.count
            let splits = try reader.count(atMost: 1 << 16, "a split count")
            let treeDepth = (splits + 1).trailingZeroBitCount
            guard splits > 0, (splits + 1) == 1 << treeDepth else {
                throw reader.error("a tree of \(splits) splits (not a full binary tree)")
            }
            if cascade == 0 && tree == 0 {
                depth = treeDepth
                let treeCount = cascadeCount * treesPerCascade
                splitPixels.deallocate()
                splitThresholds.deallocate()
                Self.deallocateLeaves(leaves)
                splitPixels = .allocate(capacity: treeCount * splits)
                splitThresholds = .allocate(capacity: treeCount * splits)
                leaves = Self.allocateLeaves(treeCount * (splits + 1) * Self.leafStride(shapeLength))
            } else if treeDepth != depth {
                throw reader.error("trees of depth \(depth) and \(treeDepth)")
            }
            let treeIndex = cascade * treesPerCascade + tree
            for split in 0..<splits {
                let first = try reader.count(atMost: 65535, "a feature pixel index")
                let second = try reader.count(atMost: 65535, "a feature pixel index")
                splitPixels[treeIndex * splits + split] = UInt32(first) | UInt32(second) << 16
                splitThresholds[treeIndex * splits + split] = try reader.float()
            }
            let leafCount = try reader.count(atMost: 1 << 17, "a leaf count")
            guard leafCount == splits + 1 else { throw reader.error("a tree of \(splits) splits and \(leafCount) leaves") }
            let stride = Self.leafStride(shapeLength)
            let base = leaves.baseAddress! + treeIndex * leafCount * stride
            for leaf in 0..<leafCount {
                _ = try reader.floatColumn(expected: shapeLength, into: base + leaf * stride)
                (base + leaf * stride + shapeLength).initialize(repeating: 0, count: stride - shapeLength)
            }
        }

        /// The anchor landmark of every cascade's feature pixels.
        private mutating func readAnchors(_ reader: inout DlibArchiveReader) throws(ShapeModelError) {
            let shapeLength = meanShape.count
            let anchorCascades = try reader.count(atMost: 1000, "a cascade count")
            guard anchorCascades == cascadeCount else { throw reader.error("anchors for \(anchorCascades) of \(cascadeCount) cascades") }
            for cascade in 0..<cascadeCount {
                let pixels = try reader.count(atMost: 65536, "a feature pixel count")
                if cascade == 0 {
                    pixelsPerCascade = pixels
                    anchors.deallocate()
                    anchors = .allocate(capacity: cascadeCount * pixels)
                } else if pixels != pixelsPerCascade {
                    throw reader.error("cascades of \(pixelsPerCascade) and \(pixels) feature pixels")
                }
                for pixel in 0..<pixels {
                    let anchor = try reader.count(atMost: shapeLength / 2 - 1, "an anchor landmark")
                    anchors[cascade * pixels + pixel] = Int32(anchor)
                }
            }
        }

        /// The offsets of every cascade's feature pixels from their anchors.
        private mutating func readDeltas(_ reader: inout DlibArchiveReader) throws(ShapeModelError) {
            let deltaCascades = try reader.count(atMost: 1000, "a cascade count")
            guard deltaCascades == cascadeCount else { throw reader.error("offsets for \(deltaCascades) of \(cascadeCount) cascades") }
            deltas.deallocate()
            deltas = .allocate(capacity: cascadeCount * pixelsPerCascade * 2)
            for cascade in 0..<cascadeCount {
                let pixels = try reader.count(atMost: 65536, "a feature pixel count")
                guard pixels == pixelsPerCascade else { throw reader.error("\(pixels) offsets for \(pixelsPerCascade) feature pixels") }
                for pixel in 0..<pixels {
                    let index = (cascade * pixels + pixel) * 2
                    deltas[index] = try reader.float()
                    deltas[index + 1] = try reader.float()
                }
            }
        }
    }
}
