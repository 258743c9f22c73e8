// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffTesting

@testable import PuffFormats

/// Reads a KDBX file with the real tools for ExportFlowTests: pykeepass through
/// Clients/kdbx_tool.py, and keepassxc-cli itself. The password goes on standard input only.
enum KDBXCheck {
    struct Entry {
        var strings: [String: String]
        var attachments: [String: String]
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// keepassxc-cli decodes standard input and encodes its output by the locale.
    static let environment = [
        "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "HOME": NSTemporaryDirectory(),
    ]

    /// Every entry as pykeepass opens it: fields, attachments as hex.
    static func pykeepass(_ path: String, password: String) async throws -> [Entry] {
        let script = ClientDriver.directory.appendingPathComponent("kdbx_tool.py").path
        let result = try await ChildProcess.run(
            ClientDriver.python, [script, "dump-py", path], environment: environment,
            input: Data((password + "\n").utf8), timeout: HangGuard.driver)
        guard result.status == 0 else { throw Failure(description: "kdbx_tool.py dump-py: \(result.output)") }
        let json = try JSONSerialization.jsonObject(with: result.bytes) as? [String: Any]
        let entries = json?["entries"] as? [[String: Any]] ?? []
        return entries.map {
            Entry(
                strings: $0["strings"] as? [String: String] ?? [:],
                attachments: $0["attachments"] as? [String: String] ?? [:])
        }
    }

    /// `keepassxc-cli show -s --all`: every field of `entry`, protected ones shown.
    static func keepassxcShow(_ path: String, entry: String, password: String) async throws -> [String: String] {
        let result = try await ChildProcess.run(
            "/usr/bin/keepassxc-cli", ["show", "-s", "--all", "-q", path, entry], environment: environment,
            input: Data((password + "\n").utf8), timeout: HangGuard.driver)
        guard result.status == 0 else { throw Failure(description: "keepassxc-cli show: \(result.output)") }
        var fields: [String: String] = [:]
        for line in result.output.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard name != "Uuid", name != "Tags" else { continue }
            let value = parts.count > 1 ? String(parts[1]) : ""
            fields[name] = value.hasPrefix(" ") ? String(value.dropFirst()) : value
        }
        return fields
    }

    /// `keepassxc-cli attachment-export` of `entry`'s attachment `name`, through a file (its
    /// standard output re-encodes bytes of 0x80 and up).
    static func keepassxcAttachment(
        _ path: String, entry: String, name: String, password: String, folder: URL
    ) async throws -> [UInt8] {
        let target = folder.appendingPathComponent("attachment-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: target) }
        let result = try await ChildProcess.run(
            "/usr/bin/keepassxc-cli", ["attachment-export", "-q", path, entry, name, target.path],
            environment: environment, input: Data((password + "\n").utf8), timeout: HangGuard.driver)
        guard result.status == 0 else {
            throw Failure(description: "keepassxc-cli attachment-export: \(result.output)")
        }
        return Array(try Data(contentsOf: target))
    }

    /// What a KeePass tool shows for an item Puff exported (docs/migration.md): Title the label,
    /// UserName and URL from `user` and `url`, the secret as Password when it is text, else the
    /// attachment FDO_SECRETS_DATA with its content type; every attribute a field of its own.
    static func expected(_ item: ImportFlowTests.Expected, contentType: String = "text/plain")
        -> (strings: [String: String], attachments: [String: String])
    {
        let secret = ExportFlowTests.bytes(item.secretHex)
        let portable = PortableItem(
            label: item.label, attributes: item.attributes, secret: SecureBytes(unwipedCopyOf: secret),
            contentType: contentType)
        let asPassword = KDBXWriter.fitsPasswordField(portable)
        var strings = [
            "Title": item.label, "UserName": item.attributes["user"] ?? "", "URL": item.attributes["url"] ?? "",
            "Password": asPassword ? String(decoding: secret, as: UTF8.self) : "", "Notes": "",
        ]
        for (name, value) in item.attributes where !((name == "user" || name == "url") && !value.isEmpty) {
            strings[name] = value
        }
        var attachments: [String: String] = [:]
        if !asPassword {
            strings["FDO_SECRETS_CONTENT_TYPE"] = contentType
            attachments["FDO_SECRETS_DATA"] = secret.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        return (strings, attachments)
    }
}
