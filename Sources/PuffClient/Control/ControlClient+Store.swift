// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffText

extension ControlClient {
    /// `CheckStore`: puffd's checks of the shared store its fleet collections are kept in
    /// (OpenBao's, docs/fleet.md), as doctor's findings: reachable, authenticated, policy and
    /// clock. Empty when puffd has no `[store.openbao]`. puffd asks with its own credentials;
    /// none of them reaches puffctl.
    public func checkStore() async throws(ClientError) -> [DoctorFinding] {
        let member = "CheckStore"
        let reply = try await call(.checkStore)
        guard case .array(_, let entries) = reply[0] else { throw .unexpectedReply(member: member) }
        var findings: [DoctorFinding] = []
        for entry in entries {
            guard let values = entry.variantDictionary else { throw .unexpectedReply(member: member) }
            let fields = ReplyFields(values, member: member)
            guard let name = try fields.string(ControlKey.check), let outcome = try fields.string(ControlKey.outcome),
                let summary = try fields.string(ControlKey.summary)
            else { throw .unexpectedReply(member: member) }
            let mark: DoctorMark
            switch outcome {
            case "ok": mark = .ok
            case "warn": mark = .warn
            case "fail": mark = .fail
            default: throw .unexpectedReply(member: member)
            }
            let next = try fields.string(ControlKey.next) ?? ""
            // Texts come from puffd and OpenBao's answers: shown with their control characters escaped.
            findings.append(
                DoctorFinding(
                    mark, "\(TerminalText.escaped(name)): \(TerminalText.escaped(summary))",
                    details: (try fields.array(ControlKey.details) ?? []).compactMap(\.string).map(
                        TerminalText.escaped),
                    next: next.isEmpty ? nil : TerminalText.escapedKeepingLines(next)))
        }
        return findings
    }
}
