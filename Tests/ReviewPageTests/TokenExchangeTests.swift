import Dispatch
import Foundation
@testable import SessionReview
import Testing

/// The printed token's one-time exchange for the cookie's secret, and where the exchange redirects.
@Suite("review token exchange")
struct TokenExchangeTests {
    @Test("the token is claimed once, for a secret that is not the token; a wrong one claims nothing")
    func once() throws {
        let token = TokenExchange.random()
        let exchange = TokenExchange(token: token)
        #expect(!exchange.admits(token))
        #expect(throws: ReviewError.missingToken) { try exchange.claim(String(token.dropLast()) + "x") }
        let secret = try exchange.claim(token)
        #expect(secret.count == 64 && secret != token)
        #expect(throws: ReviewError.tokenSpent) { try exchange.claim(token) }
        #expect(exchange.admits(secret) && !exchange.admits(token) && !exchange.admits(""))
        #expect(ReviewError.tokenSpent.status == 401)
    }

    @Test("of many requests racing with the token, exactly one gets the cookie")
    func race() {
        let token = TokenExchange.random()
        let exchange = TokenExchange(token: token)
        let won = Counter()
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            if (try? exchange.claim(token)) != nil { won.add() }
        }
        #expect(won.value == 1)
    }

    @Test("the redirect keeps the path and the other parameters, and never leaves the server")
    func redirect() {
        typealias Guard = TokenExchange
        #expect(Guard.withoutToken(path: "/", query: "token=abc") == "/")
        #expect(Guard.withoutToken(path: "/api/stimulus", query: "token=abc&presented=ff") == "/api/stimulus?presented=ff")
        #expect(Guard.withoutToken(path: "/api/sessions", query: "a=1&token=abc&b=2") == "/api/sessions?a=1&b=2")
        #expect(Guard.withoutToken(path: "//attacker.example/x", query: "token=abc") == "/")
        #expect(Guard.withoutToken(path: "/\\attacker.example/x", query: "token=abc") == "/")
        #expect(Guard.withoutToken(path: "", query: nil) == "/")
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
