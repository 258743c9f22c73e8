// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffDBus
import PuffFormats
import PuffService
import PuffSystem
import SystemPackage

/// Reads an import batch (``PortableBatch``) from the read end of a pipe passed as `h`
/// (dbus/io.puff.Control1.xml, `ImportItems`): the items never sit in a D-Bus message, and
/// each secret goes straight into locked memory.
enum ImportPipe {
    /// How long the writer may send nothing before the batch is given up. A batch can be large
    /// and its writer (puffctl) busy, so this is a silence, not a deadline for the whole batch;
    /// the caller is the vault's owner, who gains nothing by trickling.
    static let silence = Duration.seconds(60)

    /// The whole batch.
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` for a malformed batch, one cut short, or a
    ///   writer silent for ``silence``.
    static func read(_ descriptor: UnixFD, silence: Duration = silence) throws(ServiceError) -> [PortableItem] {
        var input = Input(fd: descriptor.rawValue, silence: silence)
        do {
            return try PortableBatch.read(from: &input)
        } catch {
            throw .invalidArgument("the import batch: \(error)")
        }
    }

    struct Input: PortableBatch.Input {
        let fd: Int32
        let silence: Duration

        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ForeignFormatError) {
            var filled = 0
            var waited = Duration.zero
            let slice = Duration.milliseconds(200)
            while filled < buffer.count {
                guard (try? SystemCalls.wait(for: Int16(POLLIN), on: fd, timeout: 200)) ?? true else {
                    waited += slice
                    guard waited < silence else { throw .damaged("batch: the writer went silent") }
                    continue
                }
                let count: Int
                do throws(Errno) {
                    // A failed poll falls through to the read, which reports what is wrong.
                    count = try FileDescriptor(rawValue: fd).readSome(
                        into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                } catch .wouldBlock {
                    continue
                } catch {
                    throw .damaged("batch: the pipe could not be read")
                }
                guard count > 0 else { throw .damaged("batch: cut short") }
                filled += count
                waited = .zero
            }
        }
    }
}
