import JSONStream
import Testing

@Suite("JSON stream")
struct JSONStreamTests {
    @Test("an error carries source, path, line and column as data")
    func errorAsData() {
        let text = "{\n  \"a\": [1, 2,\n  x]}"
        #expect {
            _ = try JSONValue.parse(Array(text.utf8), name: "doc.json")
        } throws: { error in
            guard case let JSONError.invalid(source, _, line, column, _) = error else { return false }
            return source == "doc.json" && line == 3 && column == 3
        }
    }

    @Test("values round-trip with members in order and shortest numbers")
    func roundTrip() throws {
        let text = #"{"b":[1,2.5,"x\n"],"a":{"n":null,"t":true},"c":0.1}"#
        let value = try JSONValue.parse(Array(text.utf8))
        #expect(value.objectKeys == ["b", "a", "c"])
        #expect(value.compactText == text)
    }

    @Test("a missing file is an io error naming it")
    func missingFile() {
        #expect(throws: JSONError.io(action: "read", path: "/nonexistent/x.json", reason: "No such file or directory")) {
            _ = try JSONReader(source: .file("/nonexistent/x.json"))
        }
    }
}
