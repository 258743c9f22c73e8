// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffCrypto
import PuffTesting
import Testing

@testable import PuffClient

/// Passcodes typed on a terminal: a pseudo-terminal stands in for the person at the keyboard.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct TerminalChannelTests {
    /// A pseudo-terminal: the test types into ``controller``; the code under test opens ``path``.
    private final class PseudoTerminal: Sendable {
        let controller: Int32
        let path: String

        init() throws {
            // Glibc's module leaves out posix_openpt, grantpt, unlockpt and ptsname (they need
            // _XOPEN_SOURCE), so this is what they do on Linux: open the multiplexer, unlock the
            // new terminal (TIOCSPTLCK) and ask its number (TIOCGPTN).
            controller = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
            var unlocked: Int32 = 0
            var number: UInt32 = 0
            guard controller >= 0, ioctl(controller, 0x4004_5431, &unlocked) == 0,
                ioctl(controller, 0x8004_5430, &number) == 0
            else { throw Descriptors.Failure(description: "no pseudo-terminal: errno \(errno)") }
            path = "/dev/pts/\(number)"
        }

        deinit {
            close(controller)
        }

        /// What the terminal showed, read until `marker` appears.
        func output(until marker: String) -> String {
            var shown: [UInt8] = []
            var byte: UInt8 = 0
            while !String(decoding: shown, as: UTF8.self).contains(marker), read(controller, &byte, 1) == 1 {
                shown.append(byte)
            }
            return String(decoding: shown, as: UTF8.self)
        }

        /// Types `text` as if at the keyboard.
        func type(_ text: String) {
            _ = text.utf8CString.withUnsafeBufferPointer { write(controller, $0.baseAddress, $0.count - 1) }
        }

        /// The terminal's local flags, read through a descriptor of its own.
        func localFlags() throws -> tcflag_t {
            let fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
            defer { close(fd) }
            var state = termios()
            guard fd >= 0, tcgetattr(fd, &state) == 0 else { throw Descriptors.Failure(description: "tcgetattr") }
            return state.c_lflag
        }

        /// Writes `marker` from the terminal's side, so ``output(until:)`` can read up to it.
        func mark(_ marker: String) {
            let fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
            defer { close(fd) }
            _ = marker.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        }
    }

    /// Types `line` once `prompt` shows, on a thread of its own while the test thread reads.
    private func typeAfterPrompt(_ terminal: PseudoTerminal, prompt: String, line: String) {
        Thread {
            _ = terminal.output(until: prompt)
            terminal.type(line)
        }
        .start()
    }

    @Test func aPasscodeTypedOnTheTerminalIsReadButNotEchoed() throws {
        let terminal = try PseudoTerminal()
        #expect(try terminal.localFlags() & tcflag_t(ECHO) != 0)
        let channel = try TerminalChannel(path: terminal.path)
        typeAfterPrompt(terminal, prompt: "Passcode for login: ", line: "hunter2\n")
        let passcode = try channel.readPasscode(prompt: "Passcode for login:")
        #expect(passcode.unprotectedArray() == Array("hunter2".utf8))
        terminal.mark("END")
        let after = terminal.output(until: "END")
        #expect(!after.contains("hunter2"))
        #expect(after.hasPrefix("\r\n"))
        #expect(try terminal.localFlags() & tcflag_t(ECHO) != 0)
    }

    @Test func echoComesBackWhenTheReadFails() throws {
        let terminal = try PseudoTerminal()
        let channel = try TerminalChannel(path: terminal.path)
        typeAfterPrompt(terminal, prompt: "Passcode:", line: "\n")
        #expect(throws: ClientError.emptyPasscode) { try channel.readPasscode(prompt: "Passcode:") }
        #expect(try terminal.localFlags() & tcflag_t(ECHO) != 0)
    }
}
