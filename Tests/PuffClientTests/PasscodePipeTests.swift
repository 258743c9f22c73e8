// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffClient
import PuffCrypto
import PuffDBus
import Testing

/// The pipe that carries a passcode to puffd.
struct PasscodePipeTests {
    @Test func theReadEndYieldsExactlyThePasscodeThenEndOfFile() throws {
        let bytes: [UInt8] = [0x00, 0x0a, 0x0d, 0x20, 0x7f, 0x80, 0xff] + Array("pass".utf8)
        let fd = try PasscodePipe.readEnd(carrying: SecureBytes(unwipedCopyOf: bytes))
        #expect(try Descriptors.readToEnd(fd.rawValue) == bytes)
    }

    @Test func aPasscodeOfTheFullLimitFitsWithoutBlocking() throws {
        let bytes = [UInt8](repeating: 0x61, count: PasscodeReader.maximumLength)
        let fd = try PasscodePipe.readEnd(carrying: SecureBytes(unwipedCopyOf: bytes))
        #expect(try Descriptors.readToEnd(fd.rawValue) == bytes)
    }

    @Test func theReadEndIsCloseOnExec() throws {
        let fd = try PasscodePipe.readEnd(carrying: SecureBytes(unwipedCopyOf: Array("x".utf8)))
        #expect(fcntl(fd.rawValue, F_GETFD) & FD_CLOEXEC != 0)
    }
}
