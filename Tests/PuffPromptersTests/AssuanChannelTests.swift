// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffTesting
import Testing

@testable import PuffPrompters

/// The Assuan lines pinentry sends and the escaping it expects, against the protocol's rules
/// (libassuan's `assuan_send_data`: `%`, CR and LF are sent as `%25`, `%0D`, `%0A`).
@Suite struct AssuanChannelTests {
    /// A channel whose "server" is the other end of two pipes, written by the test.
    final class Server {
        let channel: AssuanChannel
        private(set) var toClient: Int32
        let fromClient: Int32

        init() {
            var a: [Int32] = [0, 0]
            var b: [Int32] = [0, 0]
            _ = pipe(&a)
            _ = pipe(&b)
            channel = AssuanChannel(reading: a[0], writing: b[1])
            toClient = a[1]
            fromClient = b[0]
        }

        deinit {
            if toClient >= 0 { close(toClient) }
            close(fromClient)
        }

        /// Closes the server's writing end once. Closing it again in deinit would close whatever
        /// descriptor a test running in parallel had been given the same number since.
        func hangUp() {
            close(toClient)
            toClient = -1
        }

        func say(_ text: String) {
            _ = text.withCString { write(toClient, $0, strlen($0)) }
        }

        func heard() -> String {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(fromClient, &buffer, buffer.count)
            return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
        }
    }

    @Test func aDataLineIsPercentDecodedIntoLockedMemoryAndEndsAtOK() throws {
        let server = Server()
        server.say("S PIN_REPEATED\n# a comment\nD p%25ss%0Aw%zzord\nOK\n")
        let (data, error) = try server.channel.response()
        #expect(error == nil)
        #expect(data?.unprotectedArray() == Array("p%ss\nw%zzord".utf8))
    }

    @Test func anErrorLineCarriesItsCodeAndMessage() throws {
        let server = Server()
        server.say("ERR 83886179 Operation cancelled <Pinentry>\n")
        let (data, error) = try server.channel.response()
        #expect(data == nil)
        #expect(error?.code == 83_886_179)
        #expect(error?.message == "Operation cancelled <Pinentry>")
    }

    @Test func sentArgumentsEscapePercentCarriageReturnAndNewline() throws {
        let server = Server()
        try server.channel.send("SETDESC", "100% sure\r\nnext")
        #expect(server.heard() == "SETDESC 100%25 sure%0D%0Anext\n")
    }

    @Test func aLineLongerThanAssuanAllowsIsRefused() {
        let server = Server()
        server.say(String(repeating: "x", count: AssuanChannel.maxLine + 10) + "\n")
        #expect(throws: AssuanError.lineTooLong) { try server.channel.readLine() }
    }

    @Test func aServerThatClosesMidLineEndsTheConversation() {
        let server = Server()
        server.say("D partial")
        server.hangUp()
        #expect(throws: AssuanError.closed) { try server.channel.readLine() }
    }

    @Test(.timeLimit(.minutes(HangGuard.testMinutes))) func cancellingEndsAReadThatWouldWaitForever() async {
        let server = Server()
        let channel = server.channel
        // Before or during the read, cancel() must end it: the server never writes or closes.
        let reader = Task.detached { () -> AssuanError? in
            do throws(AssuanError) {
                _ = try channel.readLine()
                return nil
            } catch {
                return error
            }
        }
        channel.cancel()
        #expect(await reader.value == .cancelled)
        withExtendedLifetime(server) {}
    }
}
