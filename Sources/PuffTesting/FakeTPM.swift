// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
public import PuffService
import Synchronization

/// A TPM for service tests: seals under a key of its own, so a blob opens only in the instance
/// that made it, and binds to PCR values it keeps. ``replace()`` plays a TPM whose state was
/// cleared (or another machine); ``extend(_:)`` a boot that measured something else. The real one,
/// against swtpm, is `PuffHardware`'s and is tested there.
public final class FakeTPM: TPMSealing {
    private struct State {
        var key = SecureRandom.secureBytes(32)
        var identity = SecureRandom.bytes(16)
        var pcrs = [[UInt8]](repeating: [UInt8](repeating: 0, count: 32), count: 24)
        var available = true
        var seals = 0
        var unseals = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// A TPM whose key and identity come from `seed` (32 bytes), so blobs it sealed open again in
    /// another instance made from the same seed: for committed fixtures (the golden vault).
    public init(seed: [UInt8]) {
        state.withLock {
            $0.key = SecureBytes(unwipedCopyOf: Self.hash(seed + Array("key".utf8)))
            $0.identity = Array(Self.hash(seed + Array("identity".utf8)).prefix(16))
        }
    }

    /// How many seals and unseals were asked for, answered or not.
    public var calls: (seals: Int, unseals: Int) { state.withLock { ($0.seals, $0.unseals) } }

    /// Clears the TPM: every blob sealed so far is from "another TPM" now.
    public func replace() {
        state.withLock {
            $0.key = SecureRandom.secureBytes(32)
            $0.identity = SecureRandom.bytes(16)
        }
    }

    /// Extends PCR `index` (0…23) with a new measurement, as a boot that loaded something else would.
    public func extend(_ index: Int) {
        state.withLock { $0.pcrs[index] = Self.hash($0.pcrs[index] + [UInt8(index)]) }
    }

    /// Makes every call fail as ``HardwareError/unavailable(_:)`` (false) or answer again (true).
    public func setAvailable(_ available: Bool) {
        state.withLock { $0.available = available }
    }

    public func seal(_ secret: SecureBytes, pcrMask: UInt32, device: String?) async throws(HardwareError) -> [UInt8] {
        let (sealer, identity, bound) = try answering(\.seals, pcrMask: pcrMask, device: device)
        return identity + bound + sealer.seal(secret, associatedData: identity + bound)
    }

    public func unseal(_ blob: [UInt8], pcrMask: UInt32, device: String?) async throws(HardwareError) -> SecureBytes {
        let (sealer, identity, current) = try answering(\.unseals, pcrMask: pcrMask, device: device)
        guard blob.count > 48, Array(blob[0..<16]) == identity else { throw .otherTPM }
        guard Array(blob[16..<48]) == current else { throw .pcrChanged }
        guard let secret = try? sealer.open(Array(blob[48...]), associatedData: Array(blob[0..<48])) else {
            throw .otherTPM
        }
        return secret
    }

    /// Counts a call in `counter` and returns the TPM's sealer, identity and the digest of the
    /// PCRs in `pcrMask` now; throws ``HardwareError/unavailable(_:)`` while it is unavailable.
    private func answering(_ counter: WritableKeyPath<State, Int>, pcrMask: UInt32, device: String?)
        throws(HardwareError) -> (SecretSealer, identity: [UInt8], pcrs: [UInt8])
    {
        let (key, identity, pcrs, available) = state.withLock { state in
            state[keyPath: counter] += 1
            return (state.key, state.identity, Self.digest(state.pcrs, mask: pcrMask), state.available)
        }
        guard available else { throw .unavailable(device ?? "the fake TPM") }
        guard let sealer = try? SecretSealer(key: key) else { throw .failed("the fake TPM's key") }
        return (sealer, identity, pcrs)
    }

    /// 32 bytes standing for the selected PCRs' values (the mask itself included).
    private static func digest(_ pcrs: [[UInt8]], mask: UInt32) -> [UInt8] {
        var input = withUnsafeBytes(of: mask.littleEndian) { Array($0) }
        for index in 0..<24 where mask & (1 << UInt32(index)) != 0 { input += pcrs[index] }
        return hash(input)
    }

    /// 32 bytes of unkeyed BLAKE2b (two 128-bit checksums): enough to tell values apart in tests.
    private static func hash(_ input: [UInt8]) -> [UInt8] {
        Checksum.digest(input) + Checksum.digest(input + [1])
    }
}
