import Channels
import Foundation
import Testing

@Suite("Bounded channel")
struct BoundedChannelTests {
    @Test("keep-newest: a full channel drops its oldest value and says so")
    func keepNewest() throws {
        let channel = BoundedChannel<Int>(capacity: 2)
        var dropped = 0
        for value in 1...5 where channel.sendDroppingOldest(value) { dropped += 1 }
        #expect(dropped == 3)
        channel.finish()
        var received: [Int] = []
        while let value = try channel.receive() { received.append(value) }
        #expect(received == [4, 5])
    }

    @Test("lossless: values pass in order between threads, and the producer waits when full")
    func lossless() throws {
        let channel = BoundedChannel<Int>(capacity: 2)
        let producer = Thread {
            for value in 0..<1000 { _ = channel.send(value) }
            channel.finish()
        }
        producer.start()
        var received: [Int] = []
        while let value = try channel.receive() { received.append(value) }
        #expect(received == Array(0..<1000))
    }

    @Test("an error that finishes the stream reaches the consumer after the values before it")
    func finishWithError() throws {
        struct Failure: Error {}
        let channel = BoundedChannel<Int>(capacity: 4)
        _ = channel.send(1)
        channel.finish(throwing: Failure())
        #expect(try channel.receive() == 1)
        #expect(throws: Failure.self) { try channel.receive() }
    }

    @Test("after cancel, send gives up")
    func cancel() {
        let channel = BoundedChannel<Int>(capacity: 1)
        channel.cancel()
        #expect(!channel.send(1))
        #expect(channel.isCancelled)
    }
}
