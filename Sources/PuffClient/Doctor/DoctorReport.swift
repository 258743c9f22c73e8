// SPDX-License-Identifier: Apache-2.0

/// How one check of `puffctl doctor` came out.
public enum DoctorMark: String, Sendable, Equatable {
    /// Nothing to do.
    case ok = "OK"
    /// Works now, but worth a look (another provider would be activated, no prompter reachable).
    case warn = "WARN"
    /// Broken: secrets cannot reach puffd, or the vault is exposed. Makes doctor exit 1.
    case fail = "FAIL"
}

/// One finding: what a check saw and, for a problem, what to do next.
public struct DoctorFinding: Sendable, Equatable {
    /// How it came out.
    public var mark: DoctorMark
    /// One line saying what was found.
    public var summary: String
    /// Lines shown under the summary: file contents, paths, context.
    public var details: [String]
    /// What to do about it; nil for an ``DoctorMark/ok`` finding.
    public var next: String?

    /// Creates a finding.
    public init(_ mark: DoctorMark, _ summary: String, details: [String] = [], next: String? = nil) {
        self.mark = mark
        self.summary = summary
        self.details = details
        self.next = next
    }
}

/// A titled group of findings, one per area doctor looks at.
public struct DoctorSection: Sendable, Equatable {
    /// The area: "Bus", "Provider", ...
    public var title: String
    /// What its checks found, in order.
    public var findings: [DoctorFinding]

    /// Creates a section.
    public init(_ title: String, _ findings: [DoctorFinding]) {
        self.title = title
        self.findings = findings
    }
}

/// Everything `puffctl doctor` found, and its text for people.
public struct DoctorReport: Sendable, Equatable {
    /// The sections in the order they are printed.
    public var sections: [DoctorSection]

    /// Creates a report.
    public init(_ sections: [DoctorSection]) {
        self.sections = sections
    }

    /// The number of ``DoctorMark/fail`` findings: doctor exits 1 when it is not zero.
    public var failures: Int {
        sections.flatMap(\.findings).filter { $0.mark == .fail }.count
    }

    /// The report for a terminal: each section's title, then one line per finding with its mark,
    /// its details indented under it and `next:` with the step that fixes it.
    public var text: String {
        var lines: [String] = []
        for section in sections {
            if !lines.isEmpty { lines.append("") }
            lines.append(section.title)
            for finding in section.findings {
                let mark = finding.mark.rawValue + String(repeating: " ", count: 4 - finding.mark.rawValue.count)
                lines.append("  \(mark)  \(finding.summary)")
                lines += finding.details.map { "        \($0)" }
                if let next = finding.next {
                    let steps = next.split(separator: "\n", omittingEmptySubsequences: false)
                    lines.append("        next: \(steps[0])")
                    lines += steps.dropFirst().map { "          \($0)" }
                }
            }
        }
        return lines.joined(separator: "\n")
    }
}
