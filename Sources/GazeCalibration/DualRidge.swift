import GazeModel

/// Ridge regression of two targets (screen x and y) on many standardised features from few
/// samples, in its dual (kernel) form: everything is computed from the samples' Gram matrix, so
/// leaving a target's samples out for cross-validation costs a solve of the remaining samples'
/// size, not the features'.
///
/// Over the samples `rows`, with z̄ and ȳ their means, it minimises
/// Σᵢ ‖yᵢ − ȳ − Wᵀ(zᵢ − z̄)‖² + λ·m·‖W‖² (m = rows.count; the intercept is not penalised), whose
/// solution is W = Σⱼ aⱼ (zⱼ − z̄) with a = (K̃ + λ·m·I)⁻¹ (y − ȳ), K̃ the centred Gram matrix
/// K̃ᵢⱼ = (zᵢ − z̄)·(zⱼ − z̄) = Gᵢⱼ − rᵢ − rⱼ + s, rᵢ = zᵢ·z̄, s = z̄·z̄.
struct DualRidge {
    /// Samples × features, row-major.
    let features: [Double]
    let featureCount: Int
    let targets: [Point2]
    /// Gᵢⱼ = zᵢ·zⱼ over all samples.
    let gram: [Double]

    var sampleCount: Int { targets.count }

    init(features: [Double], featureCount: Int, targets: [Point2]) {
        precondition(features.count == featureCount * targets.count)
        self.features = features
        self.featureCount = featureCount
        self.targets = targets
        let n = targets.count, p = featureCount
        var gram = [Double](repeating: 0, count: n * n)
        features.withUnsafeBufferPointer { z in
            gram.withUnsafeMutableBufferPointer { g in
                for i in 0..<n {
                    for j in i..<n {
                        var sum = 0.0
                        let a = i * p, b = j * p
                        for k in 0..<p { sum += z[a + k] * z[b + k] }
                        g[i * n + j] = sum
                        g[j * n + i] = sum
                    }
                }
            }
        }
        self.gram = gram
    }

    /// A fit on the samples `rows`: dual weights and what prediction needs.
    struct Fit {
        var rows: [Int]
        var weights: [Point2]
        var meanTarget: Point2
        /// rⱼ = zⱼ·z̄ for every sample (not only `rows`), and s = z̄·z̄.
        var projections: [Double]
        var meanNorm: Double
    }

    /// Fits on `rows` with penalty `penalty` (per sample); nil if the system is not positive definite.
    func fit(rows: [Int], penalty: Double) -> Fit? {
        let n = sampleCount, m = rows.count
        guard m > 0 else { return nil }
        var projections = [Double](repeating: 0, count: n)
        for i in 0..<n {
            var sum = 0.0
            for j in rows { sum += gram[i * n + j] }
            projections[i] = sum / Double(m)
        }
        var meanNorm = 0.0
        for j in rows { meanNorm += projections[j] }
        meanNorm /= Double(m)
        var meanTarget = Point2.zero
        for j in rows { meanTarget = meanTarget + targets[j] }
        meanTarget = meanTarget / Double(m)
        var matrix = [Double](repeating: 0, count: m * m)
        for (a, i) in rows.enumerated() {
            for (b, j) in rows.enumerated() where b <= a {
                let value = gram[i * n + j] - projections[i] - projections[j] + meanNorm
                matrix[a * m + b] = value
                matrix[b * m + a] = value
            }
            matrix[a * m + a] += penalty * Double(m)
        }
        let right = rows.map { targets[$0] - meanTarget }
        guard let solution = solveSymmetricPositiveDefinite(matrix, [right.map(\.x), right.map(\.y)], n: m) else { return nil }
        return Fit(rows: rows, weights: (0..<m).map { Point2(solution[0][$0], solution[1][$0]) }, meanTarget: meanTarget,
                   projections: projections, meanNorm: meanNorm)
    }

    /// The fit's prediction for sample `i` (in or out of its rows).
    func predict(_ fit: Fit, sample i: Int) -> Point2 {
        let n = sampleCount
        var x = fit.meanTarget.x, y = fit.meanTarget.y
        for (b, j) in fit.rows.enumerated() {
            let kernel = gram[i * n + j] - fit.projections[i] - fit.projections[j] + fit.meanNorm
            x += fit.weights[b].x * kernel
            y += fit.weights[b].y * kernel
        }
        return Point2(x, y)
    }

    /// The primal form of a fit: intercepts and one coefficient per feature, so a new sample maps
    /// with one dot product.
    func primal(_ fit: Fit) -> (x: [Double], y: [Double]) {
        let p = featureCount
        var mean = [Double](repeating: 0, count: p)
        for j in fit.rows { for k in 0..<p { mean[k] += features[j * p + k] } }
        for k in 0..<p { mean[k] /= Double(fit.rows.count) }
        var wx = [Double](repeating: 0, count: p), wy = wx
        for (b, j) in fit.rows.enumerated() {
            let a = fit.weights[b]
            for k in 0..<p {
                let centred = features[j * p + k] - mean[k]
                wx[k] += a.x * centred
                wy[k] += a.y * centred
            }
        }
        var bx = fit.meanTarget.x, by = fit.meanTarget.y
        for k in 0..<p {
            bx -= wx[k] * mean[k]
            by -= wy[k] * mean[k]
        }
        return ([bx] + wx, [by] + wy)
    }
}
