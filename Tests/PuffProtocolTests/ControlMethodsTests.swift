// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffProtocol
import Testing

/// The contract's methods of `io.puff.Control1` (``ControlContract/Method``) are those of
/// dbus/io.puff.Control1.xml, the file people and other clients read: same names, same order,
/// same arguments. puffd builds its table from the contract and puffctl calls with it, so a
/// method changed in one place only fails here, with no bus.
struct ControlMethodsTests {
    private static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("dbus/io.puff.Control1.xml")

    /// Each `<method>` of the file with its `in` and `out` arguments as `name:signature`; the file
    /// keeps one element a line, which is all this reads.
    private static func methods() throws -> [(name: String, inputs: [String], outputs: [String])] {
        var methods: [(name: String, inputs: [String], outputs: [String])] = []
        var inSignal = false
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            let line = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("<signal ") { inSignal = true }
            if line.hasPrefix("</signal>") { inSignal = false }
            if line.hasPrefix("<method "), let name = attribute("name", in: line) {
                methods.append((name, [], []))
            } else if line.hasPrefix("<arg "), !inSignal, !methods.isEmpty, let name = attribute("name", in: line),
                let type = attribute("type", in: line)
            {
                if attribute("direction", in: line) == "out" {
                    methods[methods.count - 1].outputs.append(name + ":" + type)
                } else {
                    methods[methods.count - 1].inputs.append(name + ":" + type)
                }
            }
        }
        return methods
    }

    private static func attribute(_ name: String, in line: String) -> String? {
        guard let start = line.range(of: " \(name)=\"") else { return nil }
        let rest = line[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    @Test func theContractDeclaresEveryMethodOfTheInterfaceFileInItsOrderWithItsArguments() throws {
        let file = try Self.methods()
        #expect(file.count >= 30)  // the file was really read
        #expect(ControlContract.Method.all.map(\.name) == file.map(\.name))
        for method in ControlContract.Method.all {
            let declared = try #require(file.first { $0.name == method.name }, "\(method.name)")
            #expect(method.inputs.map { $0.name + ":" + $0.signature } == declared.inputs, "\(method.name)")
            #expect(method.outputs.map { $0.name + ":" + $0.signature } == declared.outputs, "\(method.name)")
        }
    }

    @Test func aMethodsSignaturesAreItsArgumentsInOrder() {
        #expect(ControlContract.Method.audit.inputSignature == "tsa{st}u")
        #expect(ControlContract.Method.audit.outputSignature == "aa{sv}a{ss}a{st}b")
        #expect(ControlContract.Method.status.inputSignature == "")
    }
}
