#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ShapeRegressionModel {
    /// Fits the landmarks inside `box` and returns them in image pixels, x0, y0, x1, y1, …,
    /// unrounded (dlib's landmarks are these rounded half up to whole pixels).
    public func fit(_ image: GrayImageView, box: RegressionBox) -> [Double] {
        var output = [Double](repeating: 0, count: shapeLength)
        withUnsafeTemporaryAllocation(of: Float.self, capacity: shapeLength + featurePixelsPerCascade) { scratch in
            let shape = scratch.baseAddress!
            let features = shape + shapeLength
            meanShape.withUnsafeBufferPointer { mean in
                shape.update(from: mean.baseAddress!, count: shapeLength)
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: treesPerCascade) { leafIndices in
                    for cascade in 0..<cascadeCount {
                        let transform = Self.similarity(from: mean.baseAddress!, to: shape, partCount: partCount)
                        readFeaturePixels(image, box: box, cascade: cascade, shape: shape, transform: transform, into: features)
                        walkAndAdd(cascade: cascade, features: features, leafIndices: leafIndices.baseAddress!, to: shape)
                    }
                }
            }
            // The unnormalising transform: (0, 0) → the box's top-left corner, (1, 1) → bottom-right.
            let width = Double(box.right - box.left), height = Double(box.bottom - box.top)
            let left = Double(box.left), top = Double(box.top)
            for index in 0..<partCount {
                output[2 * index] = Double(shape[2 * index]) * width + left
                output[2 * index + 1] = Double(shape[2 * index + 1]) * height + top
            }
        }
        return output
    }

    /// The 2×2 part (rotation × scale) of the least-squares similarity taking `from` onto `to`,
    /// in `Float` as dlib casts it: dlib's `find_similarity_transform` (Umeyama) accumulates in
    /// `Double` exactly as here; its SVD answer for two dimensions is, in closed form,
    /// [[a + d, b − c], [c − b, a + d]] / σ² with [[a, b], [c, d]] the cross-covariance and σ² the
    /// source variance.
    @inline(__always)
    static func similarity(from: UnsafePointer<Float>, to: UnsafePointer<Float>, partCount: Int) -> SIMD4<Float> {
        var meanFromX = 0.0, meanFromY = 0.0, meanToX = 0.0, meanToY = 0.0
        for index in 0..<partCount {
            meanFromX += Double(from[2 * index])
            meanFromY += Double(from[2 * index + 1])
            meanToX += Double(to[2 * index])
            meanToY += Double(to[2 * index + 1])
        }
        let count = Double(partCount)
        meanFromX /= count
        meanFromY /= count
        meanToX /= count
        meanToY /= count
        var sigmaFrom = 0.0, a = 0.0, b = 0.0, c = 0.0, d = 0.0
        for index in 0..<partCount {
            let fx = Double(from[2 * index]) - meanFromX, fy = Double(from[2 * index + 1]) - meanFromY
            let tx = Double(to[2 * index]) - meanToX, ty = Double(to[2 * index + 1]) - meanToY
            sigmaFrom += fx * fx + fy * fy
            a += tx * fx
            b += tx * fy
            c += ty * fx
            d += ty * fy
        }
        sigmaFrom /= count
        a /= count
        b /= count
        c /= count
        d /= count
        guard sigmaFrom != 0 else { return SIMD4(1, 0, 0, 1) }
        return SIMD4(Float((a + d) / sigmaFrom), Float((b - c) / sigmaFrom), Float((c - b) / sigmaFrom),
                     Float((a + d) / sigmaFrom))
    }

    /// Reads the cascade's feature pixels: each placed from its anchor landmark by the current
    /// similarity, carried into the image by the box, rounded half up; 0 outside the image.
    @inline(__always)
    func readFeaturePixels(_ image: GrayImageView, box: RegressionBox, cascade: Int, shape: UnsafePointer<Float>,
                           transform m: SIMD4<Float>, into features: UnsafeMutablePointer<Float>) {
        let width = Double(box.right - box.left), height = Double(box.bottom - box.top)
        let left = Double(box.left), top = Double(box.top)
        let anchors = self.anchors.baseAddress! + cascade * featurePixelsPerCascade
        let deltas = self.deltas.baseAddress! + cascade * featurePixelsPerCascade * 2
        let pixels = image.pixels, stride = image.stride
        let maxX = image.width - 1, maxY = image.height - 1
        for index in 0..<featurePixelsPerCascade {
            let anchor = Int(anchors[index])
            let dx = deltas[2 * index], dy = deltas[2 * index + 1]
            let px: Float = m[0] * dx + m[1] * dy + shape[2 * anchor]
            let py: Float = m[2] * dx + m[3] * dy + shape[2 * anchor + 1]
            let x = floorToInt(Double(px) * width + left + 0.5)
            let y = floorToInt(Double(py) * height + top + 0.5)
            if x >= 0 && x <= maxX && y >= 0 && y <= maxY {
                features[index] = Float(pixels[y * stride + x])
            } else {
                features[index] = 0
            }
        }
    }

    /// Walks every tree of the cascade to its leaf (pixel difference above the threshold: left)
    /// and adds the leaves to the shape in tree order, software-pipelined: tree t's leaf (9 cache
    /// lines out of 74 kB per tree) is prefetched into the second-level cache when its walk ends
    /// and added `distance` trees later, so its fetch overlaps those walks instead of stalling the
    /// add. The features were read before the cascade, so adding while walking changes nothing;
    /// every coordinate sums the same floats in the same order as dlib, which finds all the leaves
    /// first and adds them tree after tree. Not inlined into `fit`: on its own the walk keeps its
    /// pointers in registers instead of reloading them from the stack at every split.
    @inline(never)
    func walkAndAdd(cascade: Int, features: UnsafePointer<Float>, leafIndices: UnsafeMutablePointer<Int32>,
                    to shape: UnsafeMutablePointer<Float>) {
        let distance = 12
        let splits = splitsPerTree
        let firstTree = cascade * treesPerCascade
        let pairs = splitPixels.baseAddress!, thresholds = splitThresholds.baseAddress!
        let length = shapeLength
        let stride = leafStride
        let treeStride = leavesPerTree * stride
        let cascadeLeaves = leaves.baseAddress! + cascade * treesPerCascade * treeStride
        let leafBytes = stride * MemoryLayout<Float>.stride
        let trees = treesPerCascade
        for tree in 0..<(trees + distance) {
            if tree < trees {
                let base = (firstTree + tree) * splits
                var node = 0
                while node < splits {
                    let pair = pairs[base + node]
                    let difference = features[Int(pair & 0xFFFF)] - features[Int(pair >> 16)]
                    node = difference > thresholds[base + node] ? 2 * node + 1 : 2 * node + 2
                }
                let leaf = node - splits
                leafIndices[tree] = Int32(leaf)
                let address = UnsafeRawPointer(cascadeLeaves + tree * treeStride + leaf * stride)
                var line = 0
                while line < leafBytes {
                    prefetch(address + line)
                    line += 64
                }
            }
            let ready = tree - distance
            if ready >= 0 {
                let leaf = cascadeLeaves + ready * treeStride + Int(leafIndices[ready]) * stride
                for index in 0..<length { shape[index] += leaf[index] }
            }
        }
    }
}

/// `Int(floor(value))`, without a call to libm's `floor` (the baseline x86-64 target has no
/// rounding instruction, so `floor` is a call): the truncation, one less where it rounded up.
/// Equal for every value `Int(floor(value))` accepts.
@inline(__always)
func floorToInt(_ value: Double) -> Int {
    let truncated = Int(value)
    return Double(truncated) > value ? truncated - 1 : truncated
}

/// LLVM's prefetch hint (read, data), here with locality 2: x86's `prefetcht1`, which fills the
/// second-level cache and not the first. A leaf's nine lines then wait in the second level's many
/// miss slots, not the first level's few: with `prefetcht0` the prefetches themselves stalled on
/// full first-level miss buffers. The add reads them from the second level twelve trees later.
/// One instruction, no effect on results, ignored where the target has none.
@_silgen_name("llvm.prefetch.p0")
private func llvmPrefetch(_ address: UnsafeRawPointer, _ write: Int32, _ locality: Int32, _ data: Int32)

@inline(__always)
private func prefetch(_ address: UnsafeRawPointer) { llvmPrefetch(address, 0, 2, 1) }
