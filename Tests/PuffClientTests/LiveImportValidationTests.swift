// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffFormats
import Testing

@testable import PuffClient

/// `puffctl import` takes a SOURCE file or `--bus ADDRESS`, exactly one, and the file's options
/// only with a file.
@Suite struct LiveImportValidationTests {
    func refusal(_ source: String?, _ bus: String?, format: ForeignFormat? = nil, fd: Int32? = nil) -> String? {
        do {
            try LiveImport.validate(source: source, bus: bus, format: format, passcodeDescriptor: fd)
            return nil
        } catch let error as ValidationError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func aFileOrABusIsAcceptedAlone() {
        #expect(refusal("login.keyring", nil, format: .gnomeKeyring, fd: 3) == nil)
        #expect(refusal(nil, "unix:path=/run/user/1000/bus") == nil)
    }

    @Test func neitherOrBothIsRefusedSayingWhatToName() {
        #expect(refusal(nil, nil) == "name the SOURCE file, or --bus ADDRESS for a running provider")
        #expect(refusal("f", "unix:path=/x") == "name either a SOURCE file or --bus ADDRESS, not both")
    }

    @Test func theFilesOptionsAreRefusedWithABus() {
        #expect(refusal(nil, "unix:path=/x", format: .gnomeKeyring)?.hasPrefix("--format is for a SOURCE file") == true)
        #expect(refusal(nil, "unix:path=/x", fd: 0)?.hasPrefix("--source-passcode-fd is for a SOURCE file") == true)
    }
}
