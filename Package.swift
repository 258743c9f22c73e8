// swift-tools-version: 6.1
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

/// Strictness applied to every Swift target (swift-log's Package.swift does the same in one loop).
let strictness: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Puff",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "puffd", targets: ["puffd"]),
        .executable(name: "puffctl", targets: ["puffctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // No traits: the default SubprocessFoundation imports FoundationEssentials for Data inputs and
        // outputs, which Puff never uses (its children get file descriptors).
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2", traits: []),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // C libraries: only the wrapper targets below import them.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Other stores' formats only (KDBX): Argon2d, which libsodium lacks, and gzip.
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CExpat", pkgConfig: "expat", providers: [.apt(["libexpat1-dev"])]),
        // FIDO2 security keys (fido2 slots, docs/design/unlock-slots.md), with I/O hooks for `unix:PATH`.
        .systemLibrary(name: "CFido2", pkgConfig: "libfido2", providers: [.apt(["libfido2-dev"])]),
        // HTTP(S) to OpenBao for fleet collections (docs/design/fleet.md): only PuffOpenBao imports it.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // Whole reads and writes, poll and waitpid over swift-system: EINTR is retried here and nowhere else.
        .target(name: "PuffSystem", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        .target(
            name: "PuffCrypto",
            dependencies: [
                "CSodium", "COpenSSL", "CArgon2", "CZlib", .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // TPM 2.0 seal/unseal over tpm2-tss's ESAPI, in C because TPM unions are painful from Swift
        // (docs/design/unlock-slots.md §3); tctildr opens `device:` and `swtpm:` TCTIs by name.
        .target(
            name: "CPuffTPM",
            linkerSettings: [
                .linkedLibrary("tss2-esys"), .linkedLibrary("tss2-tctildr"), .linkedLibrary("tss2-mu"),
            ]),
        // puffd.toml is read with toml++ (Debian's libtomlplusplus-dev, header-only: nothing to link
        // at run time), so no TOML parser is ours; C++ behind a small C interface, without Foundation.
        .target(name: "CPuffTOML"),
        // Unlock hardware (TPM, FIDO2 security keys) behind PuffService's protocols.
        .target(name: "PuffHardware", dependencies: ["CPuffTPM", "CFido2", "PuffCrypto", "PuffService"]),
        // The one version constant puffd, puffctl and the packages share.
        .target(name: "PuffVersion"),
        // Text from others made safe to show on a terminal: puffctl's output and pinentry's questions.
        .target(name: "PuffText"),
        // The wire contract: every bus name, path, interface and error name puffd and puffctl share.
        .target(name: "PuffProtocol"),
        // The call slots D-Bus calls run in, which waits give back (shared by the bus and the service).
        .target(name: "PuffConcurrency"),
        .target(
            name: "PuffDBus",
            dependencies: [
                "CDBus", "PuffCrypto", "PuffConcurrency", "PuffSystem", .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]),
        .target(
            name: "PuffStore",
            dependencies: [
                "PuffCrypto", "PuffConcurrency", "PuffSystem", .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // Other stores' formats (gnome-keyring, libsecret, KDBX, pass, Bitwarden) read into and written
        // from one portable model, for puffctl's import and export; no D-Bus, no vault.
        .target(name: "PuffFormats", dependencies: ["PuffCrypto", "CExpat", "PuffProtocol"]),
        // OpenBao's HTTP API over libcurl (KV v2, transit, AppRole), the fleet log kept in it
        // (docs/design/fleet.md) and the service's transit slots; JSON read with PuffFormats'
        // reader. No D-Bus.
        .target(
            name: "PuffOpenBao",
            dependencies: [
                "CCurl", "PuffStore", "PuffCrypto", "PuffFormats", "PuffService", "PuffSystem",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .target(
            name: "PuffService",
            dependencies: [
                "PuffCrypto", "PuffStore", "PuffConcurrency", "PuffFormats", "PuffProtocol", "PuffSystem",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // Prompters that reach a person outside the bus (pinentry).
        .target(
            name: "PuffPrompters",
            dependencies: [
                "PuffService", "PuffCrypto", "PuffText", "PuffSystem", .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "PuffServiceBus",
            dependencies: [
                "PuffDBus", "PuffService", "PuffCrypto", "PuffConcurrency", "PuffVersion", "PuffFormats",
                "PuffProtocol", "PuffSystem", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "PuffDaemon",
            dependencies: [
                "PuffCrypto", "PuffDBus", "PuffHardware", "PuffOpenBao", "PuffPrompters", "PuffService",
                "PuffServiceBus",
                "PuffStore", "PuffVersion", "PuffSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                "CPuffTOML",
            ]
        ),
        .executableTarget(name: "puffd", dependencies: ["PuffDaemon"]),
        .target(
            name: "PuffClient",
            dependencies: [
                "PuffDBus", "PuffCrypto", "PuffStore", "PuffFormats", "PuffVersion", "PuffText", "PuffProtocol",
                "PuffSystem", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `import` of a pass store runs gpg.
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // puffctl is puffd too when started by that name (Sources/puffctl/main.swift): the packages
        // install one program under both names. The puffd product stays for builds and tests.
        .executableTarget(name: "puffctl", dependencies: ["PuffClient", "PuffDaemon"]),
        .target(
            name: "PuffTesting",
            dependencies: [
                "PuffService", "PuffStore", "PuffCrypto", "PuffDBus", "PuffProtocol", "PuffSystem", "PuffOpenBao",
                "PuffFormats",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),

        .testTarget(name: "PuffCryptoTests", dependencies: ["PuffCrypto"]),
        .testTarget(name: "PuffProtocolTests", dependencies: ["PuffProtocol"]),
        .testTarget(
            name: "PuffSystemTests",
            dependencies: ["PuffSystem", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "PuffConcurrencyTests", dependencies: ["PuffConcurrency"]),
        .testTarget(
            name: "PuffHardwareTests", dependencies: ["PuffHardware", "PuffCrypto", "PuffService", "PuffTesting"]),
        .testTarget(name: "PuffFormatsTests", dependencies: ["PuffFormats", "PuffCrypto", "PuffTesting"]),
        .testTarget(name: "PuffStoreTests", dependencies: ["PuffStore", "PuffCrypto", "PuffTesting"]),
        .testTarget(
            name: "PuffOpenBaoTests", dependencies: ["PuffOpenBao", "PuffStore", "PuffCrypto", "PuffTesting"]),
        .testTarget(
            name: "PuffDBusTests", dependencies: ["PuffDBus", "PuffCrypto", "PuffTesting", "CDBus", "PuffSystem"]),
        .testTarget(
            name: "PuffServiceTests",
            dependencies: [
                "PuffService", "PuffStore", "PuffCrypto", "PuffTesting", "PuffFormats", "PuffSystem", "PuffOpenBao",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "PuffServiceBusTests",
            dependencies: [
                "PuffServiceBus", "PuffService", "PuffDBus", "PuffTesting", "PuffStore", "PuffCrypto", "PuffProtocol",
            ]),
        .testTarget(
            name: "PuffClientTests",
            dependencies: [
                "PuffClient", "PuffDBus", "PuffCrypto", "PuffStore", "PuffTesting", "PuffFormats", "PuffVersion",
                "PuffText", "PuffProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // Help texts compared by HelpSnapshotTests (`make snapshots` rewrites them).
            exclude: ["Snapshots"]
        ),
        .testTarget(
            name: "PuffDaemonTests",
            dependencies: [
                "PuffDaemon", "PuffService", "PuffDBus", "PuffTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "PuffPromptersTests", dependencies: ["PuffPrompters", "PuffService", "PuffCrypto", "PuffTesting"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "PuffTesting", "PuffDBus", "PuffCrypto", "PuffStore", "PuffFormats", "PuffOpenBao", "CFido2",
            ],
            exclude: ["Clients"]
        ),

        // What the fuzz targets' entry points share: libFuzzer's driver, the replay tool, seeds.
        .target(name: "PuffFuzzing"),
        // libFuzzer target for WireCodec.decode (`make fuzz`, docs/fuzzing.md); a replay tool in a normal build.
        .executableTarget(name: "PuffFuzzDecode", dependencies: ["PuffDBus", "PuffFuzzing"]),
        // libFuzzer target for the vault reader: journal framing, header, catalog, records, payloads (`make fuzz`).
        .executableTarget(
            name: "PuffFuzzVault", dependencies: ["PuffStore", "PuffService", "PuffCrypto", "PuffFuzzing"]),
        // libFuzzer target for the foreign-format readers an import runs (gnome-keyring, libsecret, KDBX).
        .executableTarget(name: "PuffFuzzFormats", dependencies: ["PuffFormats", "PuffCrypto", "PuffFuzzing"]),
        // `make bench`'s source files for `puffctl import`, written with Puff's own writer (bench/run.sh).
        .executableTarget(
            name: "PuffBenchKeyring",
            dependencies: [
                "PuffFormats", "PuffCrypto", "PuffProtocol", "PuffSystem",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
    ],
    cxxLanguageStandard: .cxx17
)

// CPuffTPM and CPuffTOML are C and C++: Swift settings do not apply to them.
for target in package.targets where target.type != .system && !["CPuffTPM", "CPuffTOML"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + strictness
}
