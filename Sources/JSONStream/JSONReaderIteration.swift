/// The element and member iteration every reader of a streamed document uses (the session
/// importer, the `"gazerec"` object's codec): brackets, separators and the JSON path kept here, so
/// a caller says only what each element or member holds.
extension JSONReader {
    /// Reads an array: its `[` (else an error expecting `what`), `body` once per element with its
    /// index (on `path`, the reader at the element's first byte), then its `]`.
    public func forEachElement(of what: @autoclosure () -> String, _ body: (Int) throws -> Void) throws {
        try expect(0x5B, what())
        if try consume(0x5D) { return }
        var index = 0
        repeat {
            path.append(.index(index))
            try body(index)
            path.removeLast()
            index += 1
        } while try nextSeparator(close: 0x5D)
    }

    /// Reads an object: its `{` (else an error expecting `what`), then its members as
    /// `forEachMember(keys:_:)` does.
    public func forEachMember(of what: @autoclosure () -> String, keys: KeyTable, _ body: (Int?) throws -> Void) throws {
        try expect(0x7B, what())
        try forEachMember(keys: keys, body)
    }

    /// Reads an object's members after its `{`, through its `}`: `body` once per member with the
    /// key's index in `keys` (nil for another key, whose value `body` reads or skips), the key on
    /// `path` and the reader at the value. A key of `keys` given twice in one object is an error
    /// ("duplicate key"): which value was meant cannot be told.
    public func forEachMember(keys: KeyTable, _ body: (Int?) throws -> Void) throws {
        if try consume(0x7D) { return }
        var seen: UInt64 = 0, seenBeyond = Set<Int>()
        repeat {
            let index = try readKey(matching: keys)
            path.append(.key(lastKey))
            if let index {
                let fresh = index < 64 ? seen & (1 << UInt64(index)) == 0 : seenBeyond.insert(index).inserted
                guard fresh else { throw error("duplicate key") }
                if index < 64 { seen |= 1 << UInt64(index) }
            }
            try body(index)
            path.removeLast()
        } while try nextSeparator(close: 0x7D)
    }

    /// Reads an object whose keys are names rather than a schema's (blend-shape series): its `{`
    /// (else an error expecting `what`), `body` once per member with its key (`key` names what a key
    /// is in an error), then its `}`.
    public func forEachNamedMember(of what: @autoclosure () -> String, key: @autoclosure () -> String,
                                   _ body: (String) throws -> Void) throws {
        try expect(0x7B, what())
        if try consume(0x7D) { return }
        repeat {
            let name = try readString(key())
            try expect(0x3A, "':' after a key")
            path.append(.key(name))
            try body(name)
            path.removeLast()
        } while try nextSeparator(close: 0x7D)
    }
}
