// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A hand-written Bitwarden unencrypted JSON export (the layout `bw export --format json` and the
/// web vault write: two-space indents, `null` for what is unset), with the awkward content the
/// issue names, and what an import must make of it (docs/migration.md, "Bitwarden"). The
/// expectations are written out by hand, not computed by the reader under test.
public enum BitwardenFixture {
    /// Every printable ASCII character, space to tilde.
    public static let printable = String(decoding: (0x20...0x7E).map { UInt8($0) }, as: UTF8.self)
    /// 20,000 characters (about 46 KB of UTF-8) of ASCII, accents, a check mark and an emoji.
    public static let long = String(repeating: "Ab1!ü✓🔑 ", count: 2_500)

    /// A string as JSON writes it: quotes and backslashes escaped.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The export's bytes.
    public static var bytes: [UInt8] { Array(text.utf8) }

    static var text: String {
        #"""
        {
          "encrypted": false,
          "folders": [
            {
              "id": "0b6a1f4e-0000-4000-8000-000000000001",
              "name": "Wörk 🔧"
            },
            {
              "id": "0b6a1f4e-0000-4000-8000-000000000002",
              "name": "Parent/Child"
            }
          ],
          "items": [
            {
              "passwordHistory": [
                {
                  "lastUsedDate": "2019-02-01T00:00:00.000Z",
                  "password": "older secret"
                }
              ],
              "revisionDate": "2020-01-02T03:04:05.123Z",
              "creationDate": "2019-03-04T05:06:07.000Z",
              "deletedDate": null,
              "id": "5e1f0000-0000-4000-8000-000000000001",
              "organizationId": null,
              "folderId": "0b6a1f4e-0000-4000-8000-000000000001",
              "type": 1,
              "reprompt": 1,
              "name": "Bänk ✓ 🔑",
              "notes": "PIN hint: the usual",
              "favorite": true,
              "fields": [
                {
                  "name": "security question",
                  "value": "Rex",
                  "type": 1,
                  "linkedId": null
                }
              ],
              "login": {
                "fido2Credentials": [],
                "uris": [
                  {
                    "match": null,
                    "uri": "https://bänk.example/login"
                  },
                  {
                    "match": 3,
                    "uri": "androidapp://example.bank"
                  }
                ],
                "username": "jürgen@exämple.org",
                "password": "pässwörd ✓ \"quoted\" \\ back",
                "totp": "otpauth://totp/Bank?secret=JBSWY3DPEHPK3PXP"
              },
              "collectionIds": null
            },
            {
              "passwordHistory": null,
              "revisionDate": "2021-05-06T07:08:09.000Z",
              "creationDate": "2021-05-06T07:08:09.000Z",
              "deletedDate": null,
              "id": "5e1f0000-0000-4000-8000-000000000002",
              "organizationId": null,
              "folderId": null,
              "type": 1,
              "reprompt": 0,
              "name": "every printable",
              "notes": null,
              "favorite": false,
              "login": {
                "fido2Credentials": [],
                "uris": [],
                "username": "",
                "password": \#(quoted(printable)),
                "totp": null
              },
              "collectionIds": null
            },
            {
              "passwordHistory": null,
              "revisionDate": "2021-05-06T07:08:09.000Z",
              "creationDate": "2021-05-06T07:08:09.000Z",
              "deletedDate": null,
              "id": "5e1f0000-0000-4000-8000-000000000003",
              "organizationId": null,
              "folderId": "0b6a1f4e-0000-4000-8000-000000000002",
              "type": 1,
              "reprompt": 0,
              "name": "very long",
              "notes": "",
              "favorite": false,
              "login": {
                "uris": null,
                "username": null,
                "password": \#(quoted(long)),
                "totp": ""
              },
              "collectionIds": null
            },
            {
              "passwordHistory": null,
              "revisionDate": "2021-05-06T07:08:09.000Z",
              "creationDate": "2021-05-06T07:08:09.000Z",
              "deletedDate": null,
              "id": "5e1f0000-0000-4000-8000-000000000004",
              "organizationId": null,
              "folderId": "no such folder",
              "type": 1,
              "reprompt": 0,
              "name": "",
              "notes": null,
              "favorite": false,
              "login": {
                "uris": [
                  {
                    "match": null,
                    "uri": ""
                  }
                ],
                "username": "",
                "password": "",
                "totp": null
              },
              "collectionIds": null
            },
            {
              "passwordHistory": null,
              "revisionDate": "2022-02-02T02:02:02.000Z",
              "creationDate": "2022-02-02T02:02:02.000Z",
              "deletedDate": null,
              "id": "5e1f0000-0000-4000-8000-000000000005",
              "organizationId": null,
              "folderId": null,
              "type": 2,
              "reprompt": 0,
              "name": "N\u00f6te \ud83d\udcdd",
              "notes": "line one\nline two\ttab \"quoted\" \\ \u00e9 \ud83d\udd11\r\n",
              "favorite": false,
              "secureNote": {
                "type": 0
              },
              "collectionIds": null
            },
            {
              "passwordHistory": null,
              "revisionDate": "2022-02-02T02:02:02.000Z",
              "creationDate": "2022-02-02T02:02:02.000Z",
              "deletedDate": null,
              "id": "5e1f0000-0000-4000-8000-000000000006",
              "organizationId": null,
              "folderId": "0b6a1f4e-0000-4000-8000-000000000001",
              "type": 2,
              "reprompt": 0,
              "name": "empty note",
              "notes": null,
              "favorite": false,
              "secureNote": {
                "type": 0
              },
              "collectionIds": null
            },
            {
              "passwordHistory": null,
              "revisionDate": "2022-02-02T02:02:02.000Z",
              "creationDate": "2022-02-02T02:02:02.000Z",
              "deletedDate": null,
              "id": "5e1f0000-0000-4000-8000-000000000007",
              "organizationId": null,
              "folderId": null,
              "type": 3,
              "reprompt": 0,
              "name": "Visa",
              "notes": null,
              "favorite": false,
              "card": {
                "cardholderName": "J Doe",
                "brand": "Visa",
                "number": "4111111111111111",
                "expMonth": "1",
                "expYear": "2030",
                "code": "123"
              },
              "collectionIds": null
            },
            {
              "passwordHistory": null,
              "revisionDate": "2022-02-02T02:02:02.000Z",
              "creationDate": "2022-02-02T02:02:02.000Z",
              "deletedDate": null,
              "id": "5e1f0000-0000-4000-8000-000000000008",
              "organizationId": null,
              "folderId": null,
              "type": 4,
              "reprompt": 0,
              "name": "Me",
              "notes": null,
              "favorite": false,
              "identity": {
                "title": "Mx",
                "firstName": "Jo",
                "ssn": "000-00-0000"
              },
              "collectionIds": null
            },
            {
              "passwordHistory": null,
              "revisionDate": "2024-01-01T00:00:00.000Z",
              "creationDate": "2024-01-01T00:00:00.000Z",
              "deletedDate": null,
              "id": "5e1f0000-0000-4000-8000-000000000009",
              "organizationId": null,
              "folderId": null,
              "type": 5,
              "reprompt": 0,
              "name": "deploy key",
              "notes": null,
              "favorite": false,
              "sshKey": {
                "privateKey": "-----BEGIN OPENSSH PRIVATE KEY-----\nx\n-----END OPENSSH PRIVATE KEY-----\n",
                "publicKey": "ssh-ed25519 AAAA",
                "keyFingerprint": "SHA256:x"
              },
              "collectionIds": null
            },
            {
              "passwordHistory": null,
              "revisionDate": "2022-02-02T02:02:02.000Z",
              "creationDate": "2022-02-02T02:02:02.000Z",
              "deletedDate": "2023-03-03T03:03:03.000Z",
              "id": "5e1f0000-0000-4000-8000-00000000000a",
              "organizationId": null,
              "folderId": null,
              "type": 1,
              "reprompt": 0,
              "name": "thrown away",
              "notes": null,
              "favorite": false,
              "login": {
                "uris": [],
                "username": "old",
                "password": "gone",
                "totp": null
              },
              "collectionIds": null
            }
          ]
        }

        """#
    }
}
