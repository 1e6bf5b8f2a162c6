import Foundation
import HawalaWallet
import Testing

/// One limit for wrong wallet passwords, wherever typed (issue 39, item 4): how many are left
/// before the wait, then until when; a right one takes its own try back.
@Suite("Wrong passwords")
struct PasswordTriesTests {
    @Test func triesLeftThenUntilWhen() throws {
        var tries = PasswordTries(allowed: 3, window: 300)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var lefts: [Int] = []
        for i in 0..<3 {
            guard case .check(_, let left) = tries.start(now: start.addingTimeInterval(Double(i))) else { Issue.record("refused early"); return }
            lefts.append(left)
        }
        #expect(lefts == [2, 1, 0])
        #expect(tries.wrongWords(left: 2) == "Wrong password. 2 more tries before a wait of 5 minutes.")
        #expect(tries.wrongWords(left: 1) == "Wrong password. 1 more try before a wait of 5 minutes.")
        #expect(tries.wrongWords(left: 0) == "Wrong password. That was the last try: the next one must wait 5 minutes.")
        // The wait ends when the first wrong try stops counting.
        #expect(tries.start(now: start.addingTimeInterval(10)) == .wait(until: start.addingTimeInterval(300)))
        let utc = try #require(TimeZone(identifier: "UTC"))
        #expect(PasswordTries.waitWords(until: start.addingTimeInterval(300), now: start.addingTimeInterval(10), timeZone: utc)
                == "Too many wrong passwords. Try again at 08:05 (in 5 minutes); until then no password is checked.")
        #expect(PasswordTries.waitWords(until: start.addingTimeInterval(300), now: start.addingTimeInterval(290), timeZone: utc).contains("(in 10 seconds)"))
        guard case .check = tries.start(now: start.addingTimeInterval(300)) else { Issue.record("still waiting after the window"); return }
    }

    @Test func aRightPasswordTakesItsTryBack() {
        var tries = PasswordTries(allowed: 2, window: 300)
        let now = Date()
        for _ in 0..<10 {
            guard case .check(let attempt, _) = tries.start(now: now) else { Issue.record("a right password counted"); return }
            tries.wasRight(attempt)
        }
        guard case .check(_, let left) = tries.start(now: now) else { Issue.record("refused"); return }
        #expect(left == 1)
        tries.forgetAll()
        guard case .check(_, let after) = tries.start(now: now) else { Issue.record("refused"); return }
        #expect(after == 1)
    }
}
