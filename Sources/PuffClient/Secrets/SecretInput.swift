// SPDX-License-Identifier: Apache-2.0
import Glibc
public import PuffCrypto
import PuffSystem
import SystemPackage

/// Reads an item's secret for `add` and `edit`: typed twice on the terminal with echo off, all of
/// a descriptor (`--stdin`), straight into locked memory. Never an argument or a variable of the
/// environment: those show up in `ps`, `/proc` and shell history.
public enum SecretInput {
    /// The largest secret read, in bytes: puffd's own limit (docs/limits.md).
    public static let maximumLength = 1_048_576

    /// Everything `fd` holds until end of file, without one trailing newline: `echo pw | puffctl
    /// add --stdin` stores `pw`, as a passcode read from `--stdin` would be. Other bytes, inner
    /// newlines and a second trailing newline included, are kept exactly; to store a secret that
    /// ends in a newline, end the input with one more.
    ///
    /// - Throws: ``ClientError/usage(_:)`` for an empty secret or one over ``maximumLength``;
    ///   ``ClientError/passcodeIOFailed(errno:)`` when `read` fails.
    public static func readAll(from fd: Int32) throws(ClientError) -> SecureBytes {
        var length = 0
        // One byte past the limit tells a secret of exactly the limit from a longer one.
        let scratch = try SecureBytes(count: maximumLength + 1) { (buffer) throws(ClientError) -> Void in
            do throws(Errno) {
                length = try FileDescriptor(rawValue: fd).readFully(into: buffer)
            } catch {
                throw .passcodeIOFailed(errno: error.rawValue)
            }
        }
        guard length <= maximumLength else { throw .usage("the secret is longer than \(maximumLength) bytes") }
        let kept = scratch.withUnsafeBytes { bytes in
            length > 0 && bytes[length - 1] == UInt8(ascii: "\n") ? length - 1 : length
        }
        guard kept > 0 else { throw .usage("the secret is empty: nothing was read from standard input") }
        return scratch.withUnsafeBytes { bytes in SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[..<kept]))
        }
    }

    /// Asks for the secret of `name` on the terminal, twice with echo off (asked again on a
    /// mismatch, at most three times).
    ///
    /// - Throws: ``ClientError/usage(_:)`` when there is no terminal (saying to use `--stdin` or
    ///   `--generate`) or the secret is empty, ``ClientError/passcodesDiffer`` after the last
    ///   mismatch, or what reading throws.
    static func typed(for name: String, from channel: (any PasscodeChannel)? = nil) throws(ClientError) -> SecureBytes {
        guard let channel = channel ?? (try? TerminalChannel()) else {
            throw .usage("no terminal to type the secret on: pipe it in with --stdin, or use --generate")
        }
        do throws(ClientError) {
            for attempt in 1...PasscodePrompt.attempts {
                let first = try channel.readPasscode(prompt: "Secret for \(name):")
                let second = try channel.readPasscode(prompt: "Repeat it:")
                if first.constantTimeEquals(second) { return first }
                if attempt < PasscodePrompt.attempts { channel.tell("The two differ; try again.") }
            }
        } catch .emptyPasscode {
            throw .usage("the secret is empty; nothing was changed")
        } catch .passcodeTooLong {
            throw .usage(
                "a typed secret is at most \(PasscodeReader.maximumLength) bytes; pipe a longer one in with --stdin")
        }
        throw .usage("the two secrets differed three times; nothing was changed")
    }
}
