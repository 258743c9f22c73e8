// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService

extension FastPath {
    static let properties = "org.freedesktop.DBus.Properties"

    /// `Properties.Get` and `GetAll` of the `Item` interface at an item's own path, answered from
    /// `view` as the lane answers them (``SecretInterfaces/item(_:)``), the read noted in
    /// `readers`; nil for any other interface or property, and whenever the view declines (an
    /// item of a locked collection, say).
    static func propertiesReply(
        to message: IncomingMessage, path: ObjectPath, sender: String, view: ReadView, readers: PropertyReaders?
    ) -> OutgoingMessage? {
        guard message.interface == properties, case .item(let id)? = ObjectPaths.parse(path),
            case .string(let interface)? = message.arguments.first,
            interface.isEmpty || interface == SecretServiceNames.item.rawValue
        else { return nil }
        let name: String?
        switch (message.member, message.signature.rawValue) {
        case ("GetAll", "s"): name = nil
        case ("Get", "ss"):
            // Another name: the lane answers InvalidArgs, noting no read.
            guard case .string(let named) = message.arguments[1], itemProperties.contains(named) else { return nil }
            name = named
        default: return nil
        }
        guard let info = view.itemInfo(id) else { return nil }
        // As the lane's `Locked`: a lock announced since the view was read is the state this caller hears of.
        let locked = readers?.noteRead(id, by: sender) ?? info.isLocked
        let values: [(String, DBusValue)] = [
            ("Locked", .boolean(locked)), ("Attributes", .stringDictionary(info.attributes)),
            ("Label", .string(info.label)), ("Type", .string(info.type)), ("Created", .uint64(info.created)),
            ("Modified", .uint64(info.modified)),
        ]
        if let name, let value = values.first(where: { $0.0 == name })?.1 {
            return .reply(to: message, [.variant(value)])
        }
        return .reply(
            to: message, [.dictionary(key: "s", value: "v", values.map { .init(.string($0.0), .variant($0.1)) })])
    }

    /// The `Item` interface's properties, in the order `GetAll` gives them.
    static let itemProperties = ["Locked", "Attributes", "Label", "Type", "Created", "Modified"]
}
