/// An `Encodable` value as a `JSONValue`, object members in the order they are encoded (the
/// order of the type's `CodingKeys` for a synthesized conformance), optionals that are nil left
/// out. Small documents are `Codable` types written through this; whole sessions stream through
/// `JSONWriter`.
public struct JSONValueEncoder {
    public init() {}

    public func encode(_ value: some Encodable) throws -> JSONValue {
        let node = Node()
        try value.encode(to: NodeEncoder(node: node, codingPath: []))
        return node.value
    }
}

/// A value being encoded: containers hand out their children as nodes and read them back at the end.
private final class Node {
    enum Content {
        case value(JSONValue)
        case object([(String, Node)])
        case array([Node])
    }

    var content = Content.value(.null)

    var value: JSONValue {
        switch content {
        case .value(let value): return value
        case .object(let members): return .object(members.map { ($0.0, $0.1.value) })
        case .array(let elements): return .array(elements.map(\.value))
        }
    }

    /// A new member named `key` (replacing one of that name), or the object's first member.
    func member(_ key: String) -> Node {
        var members: [(String, Node)] = []
        if case .object(let existing) = content { members = existing }
        let child = Node()
        if let index = members.firstIndex(where: { $0.0 == key }) { members[index].1 = child } else { members.append((key, child)) }
        content = .object(members)
        return child
    }

    func element() -> Node {
        var elements: [Node] = []
        if case .array(let existing) = content { elements = existing }
        let child = Node()
        elements.append(child)
        content = .array(elements)
        return child
    }

    var count: Int { if case .array(let elements) = content { elements.count } else { 0 } }
}

private struct NodeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(node: node, codingPath: codingPath) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .value(.null) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try value.encode(to: NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.member("super"), codingPath: codingPath) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    mutating func encodeNil() throws { node.element().content = .value(.null) }

    mutating func encode(_ value: some Encodable) throws {
        try value.encode(to: NodeEncoder(node: node.element(), codingPath: codingPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.element(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.element(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.element(), codingPath: codingPath) }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    private func set(_ value: JSONValue) { node.content = .value(value) }

    /// A number JSON can hold; NaN and infinity have no JSON form.
    private func number(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "JSON has no NaN or infinity"))
        }
        set(.number(value))
    }

    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.string(value)) }
    mutating func encode(_ value: Double) throws { try number(value) }
    mutating func encode(_ value: Float) throws { try number(Double(value)) }
    mutating func encode(_ value: Int) throws { try number(Double(value)) }
    mutating func encode(_ value: Int8) throws { try number(Double(value)) }
    mutating func encode(_ value: Int16) throws { try number(Double(value)) }
    mutating func encode(_ value: Int32) throws { try number(Double(value)) }
    mutating func encode(_ value: Int64) throws { try number(Double(value)) }
    mutating func encode(_ value: UInt) throws { try number(Double(value)) }
    mutating func encode(_ value: UInt8) throws { try number(Double(value)) }
    mutating func encode(_ value: UInt16) throws { try number(Double(value)) }
    mutating func encode(_ value: UInt32) throws { try number(Double(value)) }
    mutating func encode(_ value: UInt64) throws { try number(Double(value)) }

    mutating func encode(_ value: some Encodable) throws {
        try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
    }
}

/// A member name known only at run time (a blend-shape name), as a coding key.
public struct JSONKey: CodingKey {
    public let stringValue: String
    public var intValue: Int? { nil }

    public init(_ name: String) { stringValue = name }
    public init?(stringValue: String) { self.init(stringValue) }
    public init?(intValue: Int) { nil }
}

/// A value tree inside a `Codable` document (a report built as `JSONValue`), members in order.
extension JSONValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: JSONKey.self)
            for (name, member) in members { try container.encode(member, forKey: JSONKey(name)) }
        }
    }
}
