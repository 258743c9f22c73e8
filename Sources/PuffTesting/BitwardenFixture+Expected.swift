// SPDX-License-Identifier: Apache-2.0

/// What an import of `BitwardenFixture`'s export must make of it, written out by hand.
extension BitwardenFixture {
    /// An item an import must make, secrets as bytes.
    public struct Expected: Sendable {
        public var label: String
        public var attributes: [String: String]
        public var secret: [UInt8]
        public var created: UInt64
        public var modified: UInt64
        public var leftBehind: [String]
    }

    /// The items, in the export's order.
    public static let expected: [Expected] = [
        Expected(
            label: "Bänk ✓ 🔑",
            attributes: ["user": "jürgen@exämple.org", "url": "https://bänk.example/login", "folder": "Wörk 🔧"],
            secret: Array("pässwörd ✓ \"quoted\" \\ back".utf8), created: 1_551_675_967, modified: 1_577_934_245,
            leftBehind: [
                "its notes", "its TOTP key", "1 more URI", "1 custom field",
                "its password history (1 earlier password)", "its master password re-prompt",
            ]),
        Expected(
            label: "every printable", attributes: [:], secret: Array(printable.utf8), created: 1_620_284_889,
            modified: 1_620_284_889, leftBehind: []),
        Expected(
            label: "very long", attributes: ["folder": "Parent/Child"], secret: Array(long.utf8),
            created: 1_620_284_889, modified: 1_620_284_889, leftBehind: []),
        Expected(
            label: "", attributes: [:], secret: [], created: 1_620_284_889, modified: 1_620_284_889, leftBehind: []),
        Expected(
            label: "Nöte 📝", attributes: [:], secret: Array("line one\nline two\ttab \"quoted\" \\ é 🔑\r\n".utf8),
            created: 1_643_767_322, modified: 1_643_767_322, leftBehind: []),
        Expected(
            label: "empty note", attributes: ["folder": "Wörk 🔧"], secret: [], created: 1_643_767_322,
            modified: 1_643_767_322, leftBehind: []),
    ]

    /// What is skipped, by label, with the start of the reason.
    public static let skipped: [(label: String, reason: String)] = [
        ("Visa", "a card"), ("Me", "an identity"), ("deploy key", "an SSH key"),
        ("thrown away", "in Bitwarden's trash"),
    ]

    /// Values of the skipped items and left-behind parts that must reach neither the collection
    /// nor the output.
    public static let neverImported = [
        "4111111111111111", "000-00-0000", "OPENSSH", "gone", "older secret", "PIN hint", "JBSWY3DPEHPK3PXP", "Rex",
        "androidapp",
    ]

    /// An account-encrypted export (`.json (Encrypted)`), as Bitwarden writes one; the values are
    /// made up.
    public static let encrypted = Array(
        #"""
        {
          "encrypted": true,
          "passwordProtected": true,
          "salt": "c2FsdA==",
          "kdfType": 0,
          "kdfIterations": 600000,
          "encKeyValidation_DO_NOT_EDIT": "2.AAAA|BBBB|CCCC",
          "data": "2.DDDD|EEEE|FFFF"
        }
        """#.utf8)
}
