import Foundation
import JSONStream

/// Formats sample batches as compact JSON array elements, with pre-rendered key fragments.
///
/// Each element is preceded by `,` except the first of its series, so formatted batches can be
/// concatenated between `[` and `]`. One instance per thread.
final class CompactSampleFormatter {
    private let fragments: SampleFragments
    private let blendPrefixes: [Int64: [UInt8]]
    private let sink = MemoryByteSink()
    private let writer: JSONWriter

    init(fragments: SampleFragments, seriesNames: [Int64: String]) throws {
        self.fragments = fragments
        blendPrefixes = try seriesNames.mapValues { try fragments.blendPrefix(name: $0) }
        writer = JSONWriter(sink: sink)
    }

    func format(_ batch: SampleBatch) throws -> [UInt8] {
        sink.reset()
        let prefix = batch.table == .gaze ? fragments.gazeTimestamp : blendPrefixes[batch.ownerRowID]!
        for index in 0..<batch.count {
            if batch.firstSeq + index > 0 { try writer.byte(0x2C) }
            try fragment(prefix)
            if batch.table == .gaze {
                try writer.number(batch.timestamps[index])
                try fragment(fragments.gazeX); try writer.number(batch.first[index])
                try fragment(fragments.gazeY); try writer.number(batch.second[index])
            } else {
                try writer.number(batch.first[index])
                try fragment(fragments.blendTimestamp); try writer.number(batch.timestamps[index])
            }
            try fragment(fragments.orientation); try writer.integer(batch.orientations[index])
            if let state = batch.trackingStates[index] { try fragment(fragments.trackingState); try writer.string(state) }
            try writer.byte(0x7D)
        }
        try writer.flush()
        return sink.bytes
    }

    private func fragment(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBufferPointer { try writer.rawBytes($0) }
    }
}

/// Compact-output fragments around sample values, e.g. `{"timestamp":` and `,"x":`, in one key style.
struct SampleFragments {
    let gazeTimestamp, gazeX, gazeY, orientation, trackingState: [UInt8]
    let blendLocation, blendValue, blendTimestamp: [UInt8]

    init(style: KeyStyle) {
        func key(_ key: SessionKey, first: Bool = false) -> [UInt8] {
            Array((first ? "{\"" : ",\"").utf8) + Array(key.spelling(style).description.utf8) + Array("\":".utf8)
        }
        gazeTimestamp = key(.timestamp, first: true)
        gazeX = key(.x)
        gazeY = key(.y)
        orientation = key(.orientation)
        trackingState = key(.trackingState)
        blendLocation = key(.blendShapeLocation, first: true)
        blendValue = key(.value)
        blendTimestamp = key(.timestamp)
    }

    /// `{"blendShapeLocation":"<name>","value":` for one series.
    func blendPrefix(name: String) throws -> [UInt8] {
        let sink = MemoryByteSink()
        let writer = JSONWriter(sink: sink)
        try writer.string(name)
        try writer.flush()
        return blendLocation + sink.bytes + blendValue
    }
}
