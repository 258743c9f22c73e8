// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffFormats

/// The rule that makes a second import of the same source change nothing.
@Suite struct PortableItemTests {
    func item(_ label: String = "mail", secret: String = "hunter2", attributes: [String: String] = ["user": "a"])
        -> PortableItem
    {
        PortableItem(label: label, attributes: attributes, secret: SecureBytes(unwipedCopyOf: Array(secret.utf8)))
    }

    @Test func itemsWithTheSameLabelAttributesAndSecretAreTheSameItem() {
        #expect(item().isSameItem(as: item()))
    }

    @Test func aDifferentSecretLabelOrAttributeMakesADifferentItem() {
        #expect(!item().isSameItem(as: item(secret: "hunter3")))
        #expect(!item().isSameItem(as: item("mail2")))
        #expect(!item().isSameItem(as: item(attributes: ["user": "b"])))
    }

    @Test func theGenericSchemaOrNoneIsTheSameItemAndAnotherSchemaIsNot() {
        let generic = item(attributes: ["user": "a", "xdg:schema": "org.freedesktop.Secret.Generic"])
        #expect(generic.isSameItem(as: item()))
        #expect(item().isSameItem(as: generic))
        #expect(!item(attributes: ["user": "a", "xdg:schema": "org.example.Custom"]).isSameItem(as: item()))
        #expect(!item(attributes: ["user": "a", "xdg:schema": "org.example.Custom"]).isSameItem(as: generic))
    }

    @Test func timestampsDoNotMakeADifferentItem() {
        var older = item()
        older.created = 1_000
        #expect(older.isSameItem(as: item()))
    }
}
