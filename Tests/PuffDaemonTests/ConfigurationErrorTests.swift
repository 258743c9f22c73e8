// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffDaemon

/// Each kind of mistake in `puffd.toml` stops puffd with one message naming the file, the line
/// and the key: the whole message is compared, so a vaguer one fails.
struct ConfigurationErrorTests {
    static let file = "/home/u/.config/puff/puffd.toml"

    /// The message reading `text` gives, or nil when it is accepted.
    func message(_ text: String) -> String? {
        do {
            _ = try ConfigurationFile.parse(text, file: Self.file)
            return nil
        } catch {
            return error.description
        }
    }

    @Test(arguments: [
        (
            "[vault]\nstore = \"file\"\n\n[prompts]\ntimeout = -3\n",
            "5: prompts.timeout: must be a positive number of seconds, not -3"
        ),
        (
            "[prompts]\ntimeout = \"60\"\n",
            "2: prompts.timeout: must be a whole number of seconds, not the string \"60\""
        ),
        ("prompts.timeout = 1.5\n", "1: prompts.timeout: must be a whole number of seconds, not 1.5"),
        ("[prompts]\ntimeout = 86401\n", "2: prompts.timeout: must be at most 86400 seconds, not 86401"),
        ("[vault]\nstore = \"sql\"\n", "2: vault.store: unknown store \"sql\"; choose one of: file, memory"),
        (
            "[vault]\nkdf = \"fast\"\n",
            "2: vault.kdf: unknown kdf strength \"fast\"; choose one of: moderate, interactive"
        ),
        ("[vault]\ndata_dir = \"puff\"\n", "2: vault.data_dir: must be an absolute path, not \"puff\""),
        (
            "[vault]\nstorage = \"file\"\n",
            "2: vault.storage: unknown key; [vault] takes: store, mode, data_dir, kdf, kernel_keyring, keep_deleted_days"
        ),
        (
            "[vaults]\nstore = \"file\"\n",
            "1: vaults: unknown table; puffd.toml has: [vault], [store.openbao], [prompts], [unlock], [auto_lock], [items], [access], [sessions], [limits], [audit], [backup], [log]"
        ),
        ("vault = \"file\"\n", "1: vault: must be a table ([vault]), not a value"),
        (
            "[store.openbao]\naddress = \"bao:8200\"\n",
            #"2: store.openbao.address: must be an http:// or https:// address such as "https://bao.example.net:8200", not "bao:8200""#
        ),
        (
            "[store.openbao]\npath_prefix = \"a/../b\"\n",
            #"2: store.openbao.path_prefix: must be names separated by "/", none empty, "." or "..", not "a/../b""#
        ),
        (
            "[store.openbao]\nmount = \"\"\n",
            #"2: store.openbao.mount: must be names separated by "/", none empty, "." or "..", not """#
        ),
        (
            "[store.openbao]\nnamespace = \"team1\\r\\nX-Vault-Token: s.x\"\n",
            #"2: store.openbao.namespace: must be an OpenBao namespace such as "team1" or "team1/ci", not "team1\r\nX-Vault-Token: s.x""#
        ),
        (
            "[store.openbao]\ntransit_key = \"a/b\"\n",
            #"2: store.openbao.transit_key: must be a transit key's name, such as "puff", not "a/b""#
        ),
        (
            "[store.openbao]\npoll_interval = 0\n",
            "2: store.openbao.poll_interval: must be a positive number of seconds, not 0"
        ),
        (
            "[store]\nopenbao.approle_role_id_file = \"/r\"\nopenbao.approle_secret_id_file = \"/s\"\nopenbao.token_file = \"/t\"\n",
            "4: store.openbao.token_file: and an AppRole (approle_role_id_file, approle_secret_id_file) are both set: keep one"
        ),
        (
            "[store.openbao]\napprole_role_id_file = \"/r\"\n",
            "2: store.openbao.approle_role_id_file: needs approle_secret_id_file too"
        ),
        (
            "[store.fleet]\naddress = \"http://b\"\n",
            "1: store.fleet: unknown table; puffd.toml has: [vault], [store.openbao], [prompts], [unlock], [auto_lock], [items], [access], [sessions], [limits], [audit], [backup], [log]"
        ),
        ("[store]\nopenbao = 1\n", "2: store.openbao: must be a table ([store.openbao]), not a value"),
        (
            "[store.openbao]\ntoken = \"s.x\"\n",
            "2: store.openbao.token: unknown key; [store.openbao] takes: address, namespace, mount, path_prefix, token_file, approle_role_id_file, approle_secret_id_file, ca_file, poll_interval, transit_key"
        ),
        ("[audit]\nenabled = \"yes\"\n", "2: audit.enabled: must be true or false, not the string \"yes\""),
        ("[audit]\nmax_bytes = 10\n", "2: audit.max_bytes: must be a whole number from 4096 to 1073741824, not 10"),
        (
            "[prompts]\norder = [\n  \"agent\",\n  \"bogus\",\n]\n",
            "2: prompts.order: unknown prompter \"bogus\"; choose from: agent, pinentry, none"
        ),
        (
            "[prompts]\norder = \"none\"\n",
            #"2: prompts.order: must be an array of prompter names such as ["agent", "pinentry", "none"], not the string "none""#
        ),
        (
            "[prompts]\norder = []\n",
            #"2: prompts.order: must name at least one prompter, such as ["agent", "pinentry", "none"]"#
        ),
        ("[prompts]\norder = [\"none\", \"none\"]\n", "2: prompts.order: names prompter \"none\" twice"),
        ("[prompts]\npinentry_tty = 3\n", "2: prompts.pinentry_tty: must be a string, not 3"),
        (
            "[unlock]\ntpm2_device = \"/dev/tpmrm0\"\n",
            #"2: unlock.tpm2_device: must be a TPM as tpm2-tss names it, such as "device:/dev/tpmrm0" or "swtpm:path=/run/tpm.sock", not "/dev/tpmrm0""#
        ),
        (
            "[unlock]\ntpm2_device = \"device:tpmrm0\"\n",
            #"2: unlock.tpm2_device: must be a TPM as tpm2-tss names it, such as "device:/dev/tpmrm0" or "swtpm:path=/run/tpm.sock", not "device:tpmrm0""#
        ),
        (
            "[unlock]\ntpm2_device = \"cmd:true\"\n",
            #"2: unlock.tpm2_device: must be a TPM as tpm2-tss names it, such as "device:/dev/tpmrm0" or "swtpm:path=/run/tpm.sock", not "cmd:true""#
        ),
        ("[unlock]\ntpm2_device = 0\n", "2: unlock.tpm2_device: must be a string, not 0"),
        (
            "[unlock]\nfido2_device = \"unix:key.sock\"\n",
            #"2: unlock.fido2_device: must be a device path such as "/dev/hidraw3" or unix: and a socket's absolute path, not "unix:key.sock""#
        ),
        (
            "[unlock]\nfido2_device = \"hidraw3\"\n",
            #"2: unlock.fido2_device: must be a device path such as "/dev/hidraw3" or unix: and a socket's absolute path, not "hidraw3""#
        ),
        (
            "[unlock]\nfido2_device = \"pcsc://slot0\"\n",
            #"2: unlock.fido2_device: must be a device path such as "/dev/hidraw3" or unix: and a socket's absolute path, not "pcsc://slot0""#
        ),
        (
            "[unlock]\nfido2_device = \"nfc:/sys/class/nfc/nfc0\"\n",
            #"2: unlock.fido2_device: must be a device path such as "/dev/hidraw3" or unix: and a socket's absolute path, not "nfc:/sys/class/nfc/nfc0""#
        ),
        (
            "[unlock]\nfido2_device = \"unix:/run/user/1000/../key.sock\"\n",
            #"2: unlock.fido2_device: must be a device path such as "/dev/hidraw3" or unix: and a socket's absolute path, not "unix:/run/user/1000/../key.sock""#
        ),
        (
            "[unlock]\nfido2_device = \"/home/me/.local/share/puff/catalog\"\n",
            #"2: unlock.fido2_device: must be a device path such as "/dev/hidraw3" or unix: and a socket's absolute path, not "/home/me/.local/share/puff/catalog""#
        ),
        ("[auto_lock]\nidle = -1\n", "2: auto_lock.idle: must be 0 (never) or a positive number of seconds, not -1"),
        ("[auto_lock]\nmaximum = true\n", "2: auto_lock.maximum: must be a whole number of seconds, not true"),
        ("[limits]\nsessions = 0\n", "2: limits.sessions: must be a whole number from 1 to 65536, not 0"),
        (
            "limits = { sessions = 10, prompts = \"x\" }\n",
            "1: limits.prompts: must be a whole number, not the string \"x\""
        ),
        (
            "[items]\nmappers = [\"internet\", \"keychain\"]\n",
            "2: items.mappers: unknown mapper \"keychain\"; choose from: internet, generic, note"
        ),
        (
            "[items]\nmappers = [\"other\"]\n",
            #"2: items.mappers: unknown mapper "other" ("other" is always last and not named); choose from: internet, generic, note"#
        ),
        ("[items]\nmappers = [\"note\", \"note\"]\n", "2: items.mappers: names mapper \"note\" twice"),
        (
            "[items]\nmappers = \"internet\"\n",
            #"2: items.mappers: must be an array of mapper names such as ["internet", "generic", "note"], not the string "internet""#
        ),
        (
            "[items]\nunique_internet = \"yes\"\n",
            "2: items.unique_internet: must be true or false, not the string \"yes\""
        ),
        ("[items]\nunique_internet = 1\n", "2: items.unique_internet: must be true or false, not 1"),
        (
            "# plain sessions\n[sessions]\nallow_plain = \"no\"\n",
            "3: sessions.allow_plain: must be true or false, not the string \"no\""
        ),
        (
            "[log]\nlevel = \"loud\"\n",
            "2: log.level: unknown log level \"loud\"; choose one of: trace, debug, info, notice, warning, error, critical"
        ),
    ])
    func aBadValueNamesTheFileTheLineAndTheKey(text: String, expected: String) {
        #expect(message(text) == "\(Self.file):\(expected)")
    }

    @Test func whenSeveralThingsAreWrongTheEarliestLineIsReported() {
        // toml++ keeps a table's keys sorted, so "bogus" is checked before "timeout": line order must win.
        let text = "[prompts]\ntimeout = 0\n\n[auto_lock]\nidle = -1\n[log]\nbogus = 1\n"
        #expect(message(text) == "\(Self.file):2: prompts.timeout: must be a positive number of seconds, not 0")
    }

    @Test func aSyntaxErrorGivesTomlsLineAndColumn() {
        #expect(
            message("[prompts]\norder = [\"none\"]\ntimeout = \n")
                == "\(Self.file):3:11: Error while parsing key-value pair: expected value, saw '\\n'")
        #expect(
            message("[prompts]\ntimeout = 5\n[prompts]\n")
                == "\(Self.file):3:1: Error while parsing table header: cannot redefine existing table 'prompts'")
    }

    @Test func aKeyWhoseValueSpansLinesIsPlacedOnItsFirstLine() {
        let text = "[prompts]\npinentry = \"\"\"\n/usr/bin/x\"\"\"\norder = [\n\"none\",\n]\ntimeout = -3\n"
        #expect(KeyLocator.line(of: ["prompts", "order"], in: text) == 4)
        #expect(KeyLocator.line(of: ["prompts", "timeout"], in: text) == 7)
        #expect(KeyLocator.line(of: ["prompts"], in: text) == 1)
        #expect(KeyLocator.line(of: ["vault"], in: text) == nil)
    }

    @Test func aMissingFileNamedWithConfigIsAnErrorButAMissingDefaultOneIsNot() throws {
        let path = "/nonexistent-\(UInt64.random(in: 0...UInt64.max))/puffd.toml"
        #expect(try ConfigurationFile.read(path: path, required: false) == nil)
        #expect(throws: ConfigurationError(file: path, reason: "cannot read it: No such file or directory")) {
            try ConfigurationFile.read(path: path, required: true)
        }
    }
}
