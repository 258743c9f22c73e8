// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffDBus
import Testing

@testable import PuffClient

/// `puffctl audit`'s `--since` times and its output.
struct AuditOutputTests {
    let utc = LocalTime.Zone.offset(0)

    @Test func agesCountBackFromNow() {
        #expect(AuditTime.seconds("90s", now: 1000) == 910)
        #expect(AuditTime.seconds("2m", now: 1000) == 880)
        #expect(AuditTime.seconds("1h", now: 10_000) == 6400)
        #expect(AuditTime.seconds("2d", now: 200_000) == 27_200)
        #expect(AuditTime.seconds("1w", now: 1_000_000) == 395_200)
        #expect(AuditTime.seconds("3d", now: 10) == 0)
    }

    @Test func isoDatesAndTimesAreLocalUnlessTheyNameAZone() {
        #expect(AuditTime.seconds("2023-11-14", now: 0, zone: utc) == 1_699_920_000)
        #expect(AuditTime.seconds("2023-11-14T22:13", now: 0, zone: utc) == 1_700_000_000 - 20)
        #expect(AuditTime.seconds("2023-11-14T22:13:20Z", now: 0, zone: utc) == 1_700_000_000)
        #expect(AuditTime.seconds("2023-11-15T00:13:20+02:00", now: 0, zone: utc) == 1_700_000_000)
        // Berlin in November: an hour east of UTC.
        let berlin = LocalTime.Zone.offset(3600)
        #expect(AuditTime.seconds("2023-11-14T23:13:20", now: 0, zone: berlin) == 1_700_000_000)
        #expect(AuditTime.seconds("2023-11-14 23:13", now: 0, zone: berlin) == 1_700_000_000 - 20)
    }

    @Test func aTimeReadInLocalTimeIsShownAsItWasWritten() throws {
        // mktime and localtime_r agree in whatever zone the tests run in (TZ, /etc/localtime).
        let seconds = try #require(AuditTime.seconds("2023-11-14T23:13:20", now: 0))
        #expect(AuditTime.shown(seconds) == "2023-11-14 23:13:20")
        #expect(AuditTime.shown(1_700_000_000, zone: .offset(0)) == "2023-11-14 22:13:20")
    }

    @Test(arguments: [
        "yesterday", "5x", "2023-13-01", "", "h", "-1h", "2023-02-29", "2023-11-14T24:00", "2023-11-14 22:13Z",
        "2023-11-14T22:13+2", "2023-1-14", "2023-11-14T22:13:20 ",
    ])
    func somethingElseIsNoTime(_ text: String) {
        #expect(AuditTime.seconds(text, now: 1000) == nil)
    }

    @Test func theTableListsEntriesOldestFirstWithTheCallerAndTheNotesNameLockedCollections() throws {
        let reply = try AuditLogReply(reply: Replies.audit)
        let lines = AuditOutput.text(reply).split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("TIME") && lines[0].contains("CALLER"))
        #expect(lines[1].contains("Mail") && lines[1].contains(":1.9") && lines[1].hasSuffix("change-label  failed"))
        #expect(lines[2].contains("GitHub") && lines[2].contains("/usr/bin/secret-tool"))
        #expect(
            AuditOutput.notes(reply) == [
                "puffctl: 'work' is locked, so its audit log cannot be read: run `puffctl unlock work`",
                "puffctl: the audit log of 'login' no longer holds its 12 oldest entries "
                    + "(rotated out past [audit] max_bytes in puffd.toml, or removed: see any log-removed entry)",
            ])
    }

    @Test func jsonLeavesUnknownExecutablesOut() throws {
        let json = AuditOutput.json(try AuditLogReply(reply: Replies.audit))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.map { $0["executable"] as? String } == ["/usr/bin/secret-tool", nil])
        #expect(entries[0]["pid"] as? Int == 4242)
        #expect(object["unreadable"] as? [String: String] == ["work": "locked"])
        #expect(object["rotated"] as? [String: Int] == ["login": 12])
        #expect(entries.map { $0["sequence"] as? Int } == [14, 13])
    }

    @Test func aSandboxedCallerIsShownAsItsAppAndWhatCarriedItsCall() throws {
        var body = Replies.audit
        body[0] = .array(
            element: "a{sv}",
            [
                Replies.dictionary([
                    ("collection", .string("login")), ("time", .uint64(1_700_000_200)),
                    ("action", .string("read")), ("result", .string("allowed")),
                    ("item", .objectPath(ObjectPath("/i/1")!)), ("label", .string("GitHub")),
                    ("client", .string(":1.8")),
                    ("executable", .string("/usr/bin/xdg-dbus-proxy")),
                    ("app", .string("org.example.App")), ("sequence", .uint64(15)),
                ])
            ])
        let reply = try AuditLogReply(reply: body)
        #expect(reply.entries.first?.caller == "org.example.App (via /usr/bin/xdg-dbus-proxy)")
        #expect(AuditOutput.text(reply).contains("org.example.App (via /usr/bin/xdg-dbus-proxy)"))
        let json = AuditOutput.json(reply)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.first?["app"] as? String == "org.example.App")
        #expect(entries.first?["executable"] as? String == "/usr/bin/xdg-dbus-proxy")
        // A host caller's entry has no `app`.
        let host = AuditOutput.json(try AuditLogReply(reply: Replies.audit))
        #expect(!host.contains("\"app\""))
    }
}
