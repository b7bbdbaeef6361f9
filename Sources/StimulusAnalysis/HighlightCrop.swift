import GazeModel

extension HighlightFinder {
    /// The crop of the criteria's aspect that holds the interval's gaze: the box of the central 90 %
    /// of the on-stimulus gaze (5th to 95th percentile on each axis) grown by the margin, widened
    /// to the aspect, at least half and at most all of the largest crop of that aspect the stimulus
    /// holds, centred on the box and moved inside the stimulus.
    static func crop(_ viewings: [StimulusViewing], start: Double, end: Double, placement: StimulusPlacement,
                     criteria: HighlightCriteria) -> (x: Int, y: Int, width: Int, height: Int) {
        let width = Double(placement.widthPixels), height = Double(placement.heightPixels)
        let aspect = criteria.cropAspect ?? width / height
        let largestWidth = Swift.min(width, height * aspect)
        let points = viewings.flatMap { $0.samples.filter { $0.seconds >= start && $0.seconds < end }.compactMap(\.pixel) }
        let xs = points.map(\.x).sorted(), ys = points.map(\.y).sorted()
        let margin = criteria.cropMarginDegrees * (median(ofPresent: viewings.map(\.pixelsPerDegree)) ?? 0)
        let left = (Statistics.quantile(xs, 0.05) ?? width / 2) - margin, right = (Statistics.quantile(xs, 0.95) ?? width / 2) + margin
        let top = (Statistics.quantile(ys, 0.05) ?? height / 2) - margin, bottom = (Statistics.quantile(ys, 0.95) ?? height / 2) + margin
        let needed = Swift.max(right - left, (bottom - top) * aspect)
        let cropWidth = Swift.min(largestWidth, Swift.max(largestWidth / 2, needed))
        let cropHeight = Swift.min(height, cropWidth / aspect)
        let evenWidth = Swift.max(2, Int(cropWidth / 2) * 2), evenHeight = Swift.max(2, Int(cropHeight / 2) * 2)
        let centreX = (left + right) / 2, centreY = (top + bottom) / 2
        let x = Swift.min(Swift.max(0, Int((centreX - Double(evenWidth) / 2).rounded())), placement.widthPixels - evenWidth)
        let y = Swift.min(Swift.max(0, Int((centreY - Double(evenHeight) / 2).rounded())), placement.heightPixels - evenHeight)
        return (x, y, evenWidth, evenHeight)
    }
}
