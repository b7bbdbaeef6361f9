import Foundation
import TestSupport

/// chromedriver's W3C WebDriver HTTP API, spoken directly through curl (no client library): a headless Chromium
/// session, scripts run in the page (a returned promise is awaited), pointer actions, screenshots.
final class WebDriver {
    let driver: Process
    let base: String
    var session = ""

    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: chromium) && FileManager.default.isExecutableFile(atPath: chromedriver)
    }

    init(width: Int = 1400, height: Int = 1100) throws {
        let port = 20_000 + Int.random(in: 0..<20_000)
        base = "http://127.0.0.1:\(port)"
        driver = Process()
        driver.executableURL = URL(fileURLWithPath: Self.chromedriver)
        driver.arguments = ["--port=\(port)"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        var answer: Any?
        for _ in 0..<100 {
            answer = try? call("GET", "/status")
            if answer != nil { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let options: [String: Any] = ["binary": Self.chromium,
                                      "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=\(width),\(height)",
                                               "--force-device-scale-factor=1", "--hide-scrollbars", "--autoplay-policy=no-user-gesture-required",
                                               "--font-render-hinting=none"]]
        let created = try call("POST", "/session", ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]])
        guard let value = created as? [String: Any], let id = value["sessionId"] as? String else {
            throw DriverError(message: "no session: \(String(describing: created))")
        }
        session = id
    }

    deinit {
        if !session.isEmpty { _ = try? call("DELETE", "/session/\(session)") }
        // chromedriver outlives SIGTERM while its browser closes; the session is deleted already.
        kill(driver.processIdentifier, SIGKILL)
        driver.waitUntilExit()
    }

    struct DriverError: Error, CustomStringConvertible { var message: String; var description: String { message } }

    /// One command; its `value`.
    @discardableResult
    func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any? {
        var arguments = ["-s", "--max-time", "150", "-X", method, base + path]
        var input: Data?
        if let body {
            input = try JSONSerialization.data(withJSONObject: body)
            arguments += ["-H", "Content-Type: application/json", "--data-binary", "@-"]
        }
        let result = try Binary.runProcess("/usr/bin/curl", arguments, stdin: input)
        guard result.status == 0 else { throw DriverError(message: "curl \(method) \(path): exit \(result.status)") }
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed]) as? [String: Any]
        let value = object?["value"]
        if let failure = value as? [String: Any], let error = failure["error"] as? String {
            throw DriverError(message: "\(error): \(failure["message"] ?? "")")
        }
        return value
    }

    func open(_ url: String) throws { try call("POST", "/session/\(session)/url", ["url": url]) }

    /// Runs `script` (a function body; `arguments` are `args`) in the page; a returned promise is awaited.
    @discardableResult
    func run(_ script: String, _ args: [Any] = []) throws -> Any? {
        try call("POST", "/session/\(session)/execute/sync", ["script": script, "args": args])
    }

    /// A mouse drag on the element `selector`, points relative to its top-left corner (CSS pixels).
    func drag(on selector: String, from start: (Int, Int), to end: (Int, Int)) throws {
        let element = try elementReference(selector)
        let size = try run("const b = document.querySelector(arguments[0]).getBoundingClientRect(); return [b.width, b.height];", [selector]) as? [Double] ?? [0, 0]
        func move(_ p: (Int, Int), _ duration: Int) -> [String: Any] {
            ["type": "pointerMove", "duration": duration, "origin": element,
             "x": p.0 - Int(size[0] / 2), "y": p.1 - Int(size[1] / 2)]
        }
        let actions: [[String: Any]] = [move(start, 0), ["type": "pointerDown", "button": 0], move(((start.0 + end.0) / 2, (start.1 + end.1) / 2), 50),
                                        move(end, 50), ["type": "pointerUp", "button": 0]]
        try call("POST", "/session/\(session)/actions",
                 ["actions": [["type": "pointer", "id": "mouse", "parameters": ["pointerType": "mouse"], "actions": actions]]])
        try call("DELETE", "/session/\(session)/actions")
    }

    /// Keys pressed and released one after another in the focused element (W3C key actions: "\u{E014}" →, "\u{E012}" ←).
    func keys(_ keys: [String]) throws {
        let actions: [[String: Any]] = keys.flatMap { [["type": "keyDown", "value": $0], ["type": "keyUp", "value": $0]] }
        try call("POST", "/session/\(session)/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions]]])
        try call("DELETE", "/session/\(session)/actions")
    }

    func click(_ selector: String) throws {
        let element = try elementReference(selector)
        let id = element.values.first ?? ""
        try call("POST", "/session/\(session)/element/\(id)/click", [:])
    }

    func elementReference(_ selector: String) throws -> [String: String] {
        guard let found = try call("POST", "/session/\(session)/element", ["using": "css selector", "value": selector]) as? [String: String]
        else { throw DriverError(message: "no element \(selector)") }
        return found
    }

    /// The window as PNG.
    func screenshot() throws -> Data {
        guard let text = try call("GET", "/session/\(session)/screenshot") as? String, let data = Data(base64Encoded: text)
        else { throw DriverError(message: "no screenshot") }
        return data
    }
}
