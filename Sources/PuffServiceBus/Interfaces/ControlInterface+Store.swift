// SPDX-License-Identifier: Apache-2.0
import PuffConcurrency
import PuffDBus
import PuffProtocol
import PuffStore

/// `CheckStore` of `io.puff.Control1` (dbus/io.puff.Control1.xml): `puffctl doctor`'s look at the
/// shared store of fleet collections, with puffd's credentials, which never leave puffd.
extension SecretInterfaces {
    static func storeMethods(_ context: BusContext) -> [Method] {
        [
            controlMethod(.checkStore) { _ in
                // Requests to OpenBao may take seconds: other control calls go on meanwhile.
                let checks = await CallSlot.released { await context.checkStore() }
                return [.array(element: "a{sv}", checks.map { .variantDictionary($0.controlEntries) })]
            }
        ]
    }
}

extension StoreCheck {
    /// The `a{sv}` `CheckStore` answers with for this check.
    var controlEntries: [String: DBusValue] {
        [
            ControlKey.check: .string(name), ControlKey.outcome: .string(outcome.rawValue),
            ControlKey.summary: .string(summary), ControlKey.details: .strings(details),
            ControlKey.next: .string(next ?? ""),
        ]
    }
}
