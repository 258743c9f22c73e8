// SPDX-License-Identifier: Apache-2.0
//
// The benchmark's source files for `puffctl import` (bench/run.sh, docs/benchmarks.md), written
// with Puff's own gnome-keyring writer so the benchmark needs nothing but the build:
//
//   PuffBenchKeyring write --items N --run-id ID FILE   a binary keyring of N items (password: one
//                                                        line on stdin), 0600, created new
//   PuffBenchKeyring read FILE                           opens FILE as `puffctl import` does (the
//                                                        key derivation, decryption and parsing) and
//                                                        prints "items N ms T"
//
// Item k has the label `imported item k`, the attributes service=bench-import, run=ID, user=i<k>
// and xdg:schema=org.freedesktop.Secret.Generic, and the secret bench/puff-bench.c's
// make_secret(k) gives for the run ID, so the client can check what the import stored.

import Glibc
import PuffCrypto
import PuffFormats
import PuffProtocol
import PuffSystem
import SystemPackage

/// The item secret bench/puff-bench.c's `make_secret` computes: FNV-1a over the run's id, then k.
func benchSecret(_ k: Int, runID: String) -> [UInt8] {
    var hash: UInt64 = 1_469_598_103_934_665_603
    for byte in runID.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
    hash = (hash ^ UInt64(k)) &* 1_099_511_628_211
    hash ^= hash >> 29
    let mixed = String(hash &* 0xbf58_476d_1ce4_e5b9, radix: 16)
    return Array("pw-\(k)-\(String(repeating: "0", count: 16 - mixed.count))\(mixed)".utf8)
}

/// One line of standard input, without its newline, in secure memory.
func readPassword() -> SecureBytes {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while read(0, &byte, 1) == 1, byte != 10 { line.append(byte) }
    defer { for index in line.indices { line[index] = 0 } }
    return SecureBytes(unwipedCopyOf: line)
}

func fail(_ message: String) -> Never {
    let line = Array("PuffBenchKeyring: \(message)\n".utf8)
    _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func write(items count: Int, runID: String, to path: String) {
    let password = readPassword()
    let items = (0..<count).map { k in
        PortableItem(
            label: "imported item \(k)",
            attributes: [
                "service": "bench-import", "run": runID, "user": "i\(k)",
                "xdg:schema": SecretServiceContract.genericSchema,
            ],
            secret: SecureBytes(unwipedCopyOf: benchSecret(k, runID: runID)))
    }
    guard let writer = ForeignFormats.writer(for: .gnomeKeyring) else { fail("no gnome-keyring writer") }
    let bytes: [UInt8]
    do {
        bytes = try writer.write(PortableCollection(label: "bench", items: items), passcode: password)
    } catch {
        fail("writing the keyring: \(error)")
    }
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else { fail("cannot create \(path): \(String(cString: strerror(errno)))") }
    do throws(Errno) {
        try FileDescriptor(rawValue: fd).writeFully(bytes)
    } catch {
        fail("cannot write \(path): \(String(cString: strerror(error.rawValue)))")
    }
    guard fsync(fd) == 0, close(fd) == 0 else { fail("cannot write \(path)") }
}

func timeRead(_ path: String) {
    let password = readPassword()
    guard let file = fopen(path, "rb") else { fail("cannot read \(path)") }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while case let count = fread(&chunk, 1, chunk.count, file), count > 0 { bytes += chunk[0..<count] }
    fclose(file)
    let start = ContinuousClock.now
    let collection: PortableCollection
    do {
        collection = try ForeignFormats.reader(for: bytes, format: .gnomeKeyring).read(bytes, passcode: password)
    } catch {
        fail("reading \(path): \(error)")
    }
    let elapsed = ContinuousClock.now - start
    let ms = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
    print("items \(collection.items.count) ms \(ms)")
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "write":
    guard arguments.count == 6, arguments[1] == "--items", let count = Int(arguments[2]), count >= 0,
        arguments[3] == "--run-id"
    else { fail("usage: PuffBenchKeyring write --items N --run-id ID FILE") }
    write(items: count, runID: arguments[4], to: arguments[5])
case "read" where arguments.count == 2:
    timeRead(arguments[1])
default:
    fail("usage: PuffBenchKeyring write --items N --run-id ID FILE | read FILE  (password on stdin)")
}
