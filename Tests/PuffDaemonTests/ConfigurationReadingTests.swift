// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService
import Testing

@testable import PuffDaemon

/// `puffd.toml` read into a ``DaemonConfiguration``: every key, and the defaults it leaves alone.
struct ConfigurationReadingTests {
    /// A file that sets every key to something other than its default.
    static let everyKey = """
        # every key puffd.toml takes
        [vault]
        store = "memory"
        mode = "persistent"
        data_dir = "/srv/puff"
        kdf = "interactive"
        kernel_keyring = 30
        keep_deleted_days = 30

        [store.openbao]
        address = "https://bao.example.net:8200"
        namespace = "team1/ci"
        mount = "kv"
        path_prefix = "teams/puff"
        approle_role_id_file = "/etc/puff/role-id"
        approle_secret_id_file = "/etc/puff/secret-id"
        ca_file = "/etc/puff/ca.pem"
        poll_interval = 5
        transit_key = "fleet"

        [prompts]
        order = ["pinentry", "none"]
        timeout = 15
        pinentry = "/usr/bin/pinentry-curses"
        pinentry_tty = "/dev/pts/3"

        [unlock]
        tpm2_device = "device:/dev/tpm0"
        fido2_device = "/dev/hidraw3"

        [auto_lock]
        idle = 300
        maximum = 0

        [items]
        mappers = ["note", "internet"]
        unique_internet = true
        [access]
        mode = "strict"
        hash_executables = true

        [sessions]
        allow_plain = false
        fast_reads = false

        [limits]
        label_bytes = 100
        attributes_per_item = 10
        attribute_bytes_per_item = 2000
        secret_bytes = 4096
        sessions_per_client = 3
        sessions = 30
        prompts_per_client = 2
        prompts = 20
        items_per_collection = 5000
        collections = 8
        concurrent_calls = 4
        queued_calls_per_client = 100

        [audit]
        enabled = false
        max_bytes = 65536

        [backup]
        keep = 9

        [log]
        level = "debug"
        """

    /// What ``everyKey`` says, built by hand.
    static var everyKeyExpected: DaemonConfiguration {
        var expected = DaemonConfiguration()
        expected.store = "memory"
        expected.mode = "persistent"
        expected.dataDir = "/srv/puff"
        expected.kdf = "interactive"
        expected.kernelKeyring = 30
        expected.keepDeletedDays = 30
        expected.openBao.address = "https://bao.example.net:8200"
        expected.openBao.namespace = "team1/ci"
        expected.openBao.mount = "kv"
        expected.openBao.pathPrefix = "teams/puff"
        expected.openBao.roleIDFile = "/etc/puff/role-id"
        expected.openBao.secretIDFile = "/etc/puff/secret-id"
        expected.openBao.caFile = "/etc/puff/ca.pem"
        expected.openBao.pollInterval = 5
        expected.openBao.transitKey = "fleet"
        expected.prompterOrder = ["pinentry", "none"]
        expected.promptTimeout = 15
        expected.pinentry = "/usr/bin/pinentry-curses"
        expected.pinentryTTY = "/dev/pts/3"
        expected.tpm2Device = "device:/dev/tpm0"
        expected.fido2Device = "/dev/hidraw3"
        expected.lockAfterIdle = 300
        expected.accessMode = "strict"
        expected.hashExecutables = true
        expected.allowPlainSessions = false
        expected.fastReads = false
        expected.lockAfter = 0
        expected.mappers = ["note", "internet"]
        expected.uniqueInternet = true
        expected.limits.labelBytes = 100
        expected.limits.attributesPerItem = 10
        expected.limits.attributeBytesPerItem = 2000
        expected.limits.secretBytes = 4096
        expected.limits.sessionsPerClient = 3
        expected.limits.sessions = 30
        expected.limits.promptsPerClient = 2
        expected.limits.prompts = 20
        expected.limits.itemsPerCollection = 5000
        expected.limits.collections = 8
        expected.concurrentCalls = 4
        expected.queuedCallsPerClient = 100
        expected.auditEnabled = false
        expected.auditMaxBytes = 65536
        expected.backupKeep = 9
        expected.logLevel = "debug"
        return expected
    }

    @Test func everyKeyIsReadIntoTheConfiguration() throws {
        let read = try ConfigurationFile.parse(Self.everyKey, file: "/etc/puffd.toml")
        #expect(read == Self.everyKeyExpected)
        #expect(read.effectiveAutoLock == AutoLockSettings(idle: .seconds(300), maximum: nil))
        #expect(read.busLimits.concurrentCalls == 4 && read.busLimits.queuedCallsPerClient == 100)
        #expect(read.itemRules.mappers.active.map(\.name) == ["note", "internet"] && read.itemRules.uniqueInternet)
    }

    @Test func byDefaultEveryMapperIsActiveInternetFirstAndInternetPasswordsAreNotUnique() {
        let rules = DaemonConfiguration().itemRules
        #expect(rules.mappers.active.map(\.name) == ["internet", "generic", "note"])
        #expect(!rules.uniqueInternet)
    }

    @Test func anEmptyMapperListTurnsTheTypedViewOff() throws {
        let read = try ConfigurationFile.parse("[items]\nmappers = []\n", file: "f")
        #expect(read.mappers.isEmpty && read.itemRules.mappers.active.isEmpty)
    }

    @Test func theExampleFileSetsEveryKeyTheReaderKnows() throws {
        // A key added to ConfigurationKeys without a line in the example would go untested.
        // token_file excludes the AppRole files the example sets: aTokenFileIsReadInPlaceOfAnAppRole.
        for key in ConfigurationKeys.all where key.dotted != "store.openbao.token_file" {
            #expect(Self.everyKey.contains("\n\(key.name) = "), "\(key.dotted) is not in the example")
        }
    }

    @Test func aTokenFileIsReadInPlaceOfAnAppRole() throws {
        let read = try ConfigurationFile.parse("[store.openbao]\ntoken_file = \"/run/puff/token\"\n", file: "f")
        var expected = DaemonConfiguration()
        expected.openBao.tokenFile = "/run/puff/token"
        #expect(read == expected)
        #expect(read.openBao.mount == "secret" && read.openBao.pathPrefix == "puff" && read.openBao.pollInterval == 1)
    }

    @Test func anEmptyFileLeavesEveryDefault() throws {
        #expect(try ConfigurationFile.parse("# nothing yet\n", file: "f") == DaemonConfiguration())
    }

    @Test func aFileSetsOnlyWhatItNamesAndDottedKeysWorkAsTablesDo() throws {
        let read = try ConfigurationFile.parse("prompts.timeout = 9\nlimits = { sessions = 7 }\n", file: "f")
        var expected = DaemonConfiguration()
        expected.promptTimeout = 9
        expected.limits.sessions = 7
        #expect(read == expected)
    }

    @Test func theAutoLockDefaultsDependOnTheStoreUnlessTheFileSetsThem() throws {
        let file = try ConfigurationFile.parse("[vault]\nstore = \"file\"\n", file: "f")
        #expect(file.effectiveLockAfterIdle == 900 && file.effectiveLockAfter == 28_800)
        let memory = try ConfigurationFile.parse("[vault]\nstore = \"memory\"\n", file: "f")
        #expect(memory.effectiveAutoLock == .never)
        let chosen = try ConfigurationFile.parse("[vault]\nstore = \"memory\"\n[auto_lock]\nidle = 60\n", file: "f")
        #expect(chosen.effectiveAutoLock == AutoLockSettings(idle: .seconds(60), maximum: nil))
    }

    @Test func theDataFolderDefaultsToXDGDataHomeThenHome() {
        let configuration = DaemonConfiguration()
        #expect(configuration.effectiveDataDir(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]) == "/d/puff")
        // The XDG specification says a relative XDG_DATA_HOME is to be ignored.
        #expect(
            configuration.effectiveDataDir(environment: ["XDG_DATA_HOME": "d", "HOME": "/h"]) == "/h/.local/share/puff")
    }

    @Test func theFileIsLookedForInXDGConfigHomeThenHome() {
        #expect(
            ConfigurationFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"]) == "/c/puff/puffd.toml")
        #expect(ConfigurationFile.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/puff/puffd.toml")
        #expect(
            ConfigurationFile.defaultPath(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/h"])
                == "/h/.config/puff/puffd.toml")
    }
}
