// SPDX-License-Identifier: Apache-2.0

/// `puffctl slot list` for people and for scripts.
enum SlotOutput {
    /// One row per slot: its number, type, label and what it needs beyond its credential.
    static func text(_ slots: [SlotSummary]) -> String {
        var table = TextTable("SLOT", "TYPE", "LABEL", "DETAILS")
        for slot in slots {
            table.append(String(slot.id), slot.type, slot.label, details(slot))
        }
        return table.rendered
    }

    /// `[{"id":…,"label":…,"type":…, "pcrs":[…], "up":…, "uv":…, "pin":…, "transit_key":…}]`, the last five only
    /// where they apply.
    static func json(_ slots: [SlotSummary]) -> String {
        JSONOutput.encode(slots.map(Entry.init))
    }

    /// "pcrs 7+11", "touch, pin", "-".
    static func details(_ slot: SlotSummary) -> String {
        var parts: [String] = []
        if let mask = slot.pcrs {
            parts.append(mask == 0 ? "no pcrs" : "pcrs " + pcrs(mask).map(String.init).joined(separator: "+"))
        }
        if slot.presence == true { parts.append("touch") }
        if slot.presence == false { parts.append("no touch") }
        if slot.verification == true { parts.append("uv") }
        if slot.pin == true { parts.append("pin") }
        if let key = slot.transitKey { parts.append("transit key \(key)") }
        return parts.isEmpty ? "-" : parts.joined(separator: ", ")
    }

    /// The PCR numbers set in `mask`, lowest first.
    static func pcrs(_ mask: UInt32) -> [Int] {
        (0..<32).filter { mask & (1 << UInt32($0)) != 0 }
    }

    private struct Entry: Encodable {
        var id: UInt16
        var type: String
        var label: String
        var pcrs: [Int]?
        var up: Bool?
        var uv: Bool?
        var pin: Bool?
        var transit_key: String?

        init(_ slot: SlotSummary) {
            id = slot.id
            type = slot.type
            label = slot.label
            pcrs = slot.pcrs.map(SlotOutput.pcrs)
            up = slot.presence
            uv = slot.verification
            pin = slot.pin
            transit_key = slot.transitKey
        }
    }
}
