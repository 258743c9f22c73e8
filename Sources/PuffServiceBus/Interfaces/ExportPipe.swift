// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffDBus
import PuffFormats
import PuffService
import PuffSystem
import SystemPackage

/// Writes an export's items (``PortableBatch``) into the write end of a pipe passed as `h`
/// (dbus/io.puff.Control1.xml, `ExportItems`): the secrets never sit in a D-Bus message, and go
/// from locked memory straight into the pipe. The mirror of ``ImportPipe``.
enum ExportPipe {
    /// How long the reader may take nothing before the export is given up: a silence, not a
    /// deadline for the whole batch, so puffd never waits forever on a reader that stopped.
    static let silence = Duration.seconds(60)

    /// Refuses anything but a pipe's write end: a regular file would put the secrets on a disk.
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)``.
    static func check(_ descriptor: UnixFD) throws(ServiceError) {
        var status = stat()
        let flags = fcntl(descriptor.rawValue, F_GETFL)
        guard fstat(descriptor.rawValue, &status) == 0, status.st_mode & S_IFMT == S_IFIFO, flags >= 0,
            flags & O_ACCMODE == O_WRONLY
        else { throw .invalidArgument("items must be the write end of a pipe (h)") }
    }

    /// Writes the whole batch, then closes puffd's copy of the write end, so a reader waiting
    /// for more sees the end even while the call's message lives on.
    ///
    /// - Throws: ``ServiceError/failed(_:)`` when the reader went away or stayed silent.
    static func write(
        _ items: [PortableItem], to descriptor: UnixFD, silence: Duration = silence
    ) throws(ServiceError) {
        var output = Output(fd: descriptor.rawValue, silence: silence)
        defer { closeWrites(descriptor) }
        let flags = fcntl(descriptor.rawValue, F_GETFL)
        // Non-blocking, so a full pipe is waited for with poll and the silence can end it.
        guard flags >= 0, fcntl(descriptor.rawValue, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .invalidArgument("items must be a pipe's write end (h)")
        }
        do {
            try PortableBatch.write(items, to: &output)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .failed("the export could not be handed over: \(error)")
        }
    }

    /// Puts /dev/null in place of the write end: the descriptor's number stays owned by the
    /// message, but the pipe no longer has puffd as a writer.
    static func closeWrites(_ descriptor: UnixFD) {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard null >= 0 else { return }
        _ = dup2(null, descriptor.rawValue)
        close(null)
    }

    struct Output: PortableBatch.Output {
        let fd: Int32
        let silence: Duration

        mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
            var offset = 0
            var waited = Duration.zero
            let slice = Duration.milliseconds(200)
            let descriptor = FileDescriptor(rawValue: fd)
            while offset < bytes.count {
                do throws(Errno) {
                    let count = try descriptor.writeSome(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                    guard count > 0 else { throw .brokenPipe }
                    offset += count
                    waited = .zero
                    continue
                } catch .wouldBlock {
                    // The pipe is full: wait below for the reader to make room.
                } catch {
                    throw ServiceError.failed("the export's reader went away (puffctl stopped?)")
                }
                let ready: Bool
                do throws(Errno) {
                    ready = try SystemCalls.wait(for: Int16(POLLOUT), on: fd, timeout: 200)
                } catch {
                    throw ServiceError.failed("the export's pipe could not be written")
                }
                if !ready {
                    waited += slice
                    guard waited < silence else { throw ServiceError.failed("the export's reader went silent") }
                }
            }
        }
    }
}
