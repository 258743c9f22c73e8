// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import PuffService
import Testing

@testable import PuffDaemon

/// `[vault] store` names the backend and `[vault] mode` how keys are kept (docs/configuration.md):
/// each store has a default mode, `--ephemeral` sets both, and a store that cannot hold a mode
/// stops puffd with a message that says why and what to use.
struct VaultModeTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puffd-mode-\(UUID().uuidString)")

    func effective(_ text: String, _ arguments: [String] = []) throws -> DaemonConfiguration {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("puffd.toml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return try PuffDaemon.parse(["--config", url.path] + arguments)
            .effectiveConfiguration(environment: ["HOME": "/nonexistent"]).0
    }

    @Test func eachStoreHasADefaultModeAndEphemeralSetsBoth() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try effective("").effectiveMode == .persistent)
        #expect(try effective("[vault]\nstore = \"memory\"\n").effectiveMode == .ephemeral)
        let ephemeral = try effective("[vault]\nstore = \"file\"\n", ["--ephemeral"])
        #expect(ephemeral.store == "memory" && ephemeral.effectiveMode == .ephemeral && ephemeral.isEphemeral)
    }

    @Test func aMemoryVaultWithPasscodesIsPersistentAndLocksOnItsTimers() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let settings = try effective("[vault]\nstore = \"memory\"\nmode = \"persistent\"\n")
        #expect(settings.effectiveMode == .persistent && !settings.isEphemeral)
        #expect(settings.effectiveAutoLock == .standard)
    }

    @Test func anEphemeralVaultInTheFileStoreIsRefusedSayingWhy() throws {
        let text = "[vault]\nstore = \"file\"\nmode = \"ephemeral\"\n"
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationFile.parse(text, file: "/c/puffd.toml")
        }
        #expect(
            error?.description
                == "/c/puffd.toml:3: vault.mode: the file store cannot hold an ephemeral vault: its collection keys "
                + "would live only in puffd's memory, so what it wrote would not open after a restart; use store = "
                + "\"memory\" (or --ephemeral)")
    }

    @Test func theCommandLineCannotMakeTheFileStoreEphemeralEither() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = #expect(throws: ConfigurationError.self) {
            try effective("[vault]\nstore = \"memory\"\nmode = \"ephemeral\"\n", ["--vault", "file"])
        }
        #expect(error?.key == "vault.mode")
        #expect(error?.reason.hasPrefix("the file store cannot hold an ephemeral vault") == true)
    }

    @Test func anUnknownModeIsRefused() {
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationFile.parse("[vault]\nmode = \"temporary\"\n", file: "/c/puffd.toml")
        }
        #expect(
            error?.description
                == "/c/puffd.toml:2: vault.mode: unknown vault mode \"temporary\"; choose one of: persistent, ephemeral"
        )
    }

    @Test func theStoresAreTheFactoryTablesAndEachNamesItsKind() {
        #expect(PluginRegistry.recordStores == ["file", "memory"])
        #expect(RecordStoreFactory.named("file")?.modes == [.persistent])
        #expect(RecordStoreFactory.named("memory")?.modes == [.ephemeral, .persistent])
        #expect(RecordStoreFactory.named("sql") == nil)
    }
}
