// SPDX-License-Identifier: Apache-2.0
import PuffDBus
public import PuffService

/// The five Secret Service interface tables, built once and shared by routing and introspection.
public struct SecretInterfaces: Sendable {
    let service: Interface
    let collection: Interface
    let item: Interface
    let session: Interface
    let prompt: Interface
    /// gnome-keyring's private interface, `ChangeWithPrompt` only (not part of the reference
    /// document either).
    let gnomeKeyring: Interface
    /// The Secret portal's backend and its requests (docs/design/sandboxed-apps.md §2), served on
    /// the same connection: whoever owns org.freedesktop.secrets serves the portal.
    let portal: Interface
    let portalRequest: Interface

    init(context: BusContext) {
        service = Self.service(context)
        collection = Self.collection(context)
        item = Self.item(context)
        session = Self.session(context)
        prompt = Self.prompt(context)
        gnomeKeyring = Self.gnomeKeyring(context)
        portal = Self.portal(context)
        portalRequest = Self.portalRequest(context)
    }

    /// All five, in the order of `dbus/org.freedesktop.Secrets.xml`.
    var all: [Interface] { [service, collection, item, session, prompt] }

    /// Every interface served, so a call to any of their methods is decoded. `io.puff.Control1`
    /// is not among them: ``ControlBus`` serves it on a connection of its own.
    var served: [Interface] { all + [gnomeKeyring, portal, portalRequest] }

    /// The introspection document of the interfaces Puff serves; `dbus/org.freedesktop.Secrets.xml`
    /// is exactly this text, and a test keeps the two equal.
    public static func referenceDocument(for service: SecretService) -> String {
        Introspection.document(interfaces: SecretInterfaces(context: BusContext(service: service)).all)
    }
}
