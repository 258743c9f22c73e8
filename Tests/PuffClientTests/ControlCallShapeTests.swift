// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import Testing

@testable import PuffClient

/// puffctl sends each control call in the shape of the wire contract's method
/// (``ControlContract/Method``): a body of another shape is its own bug, refused before it is sent.
struct ControlCallShapeTests {
    @Test func aBodyOfAnotherShapeThanTheContractsIsRefusedBeforeItIsSent() {
        let refused = #expect(throws: ClientError.self) {
            try ControlClient.check([.string("login"), .uint32(1)], of: .removeSlot)
        }
        #expect(refused == .failed(name: "", message: "puffctl built RemoveSlot as (su), not (sqa{sv}h)"))
    }

    @Test func aBodyInTheContractsShapePasses() throws {
        try ControlClient.check([.string("login")], of: .listSlots)
        try ControlClient.check([], of: .status)
        let none = DBusValue.dictionary(key: "s", value: "v", [])
        try ControlClient.check(
            [.uint64(0), .string(""), .dictionary(key: "s", value: "t", []), .uint32(0)], of: .audit)
        try ControlClient.check([.objectPath(.root), .boolean(true), none], of: .setProtected)
        try ControlClient.check(
            [.objectPath(.root), .string("org.example.App"), .boolean(false), none], of: .setAppAccess)
        try ControlClient.check([.objectPath(.root), .string("org.example.App"), none], of: .revokeAppAccess)
    }
}
