// SPDX-License-Identifier: Apache-2.0
import PuffText

/// A plain text table: a header row and left-aligned columns two spaces apart.
struct TextTable {
    private let headers: [String]
    private var rows: [[String]] = []

    /// A table with these column headers.
    init(_ headers: String...) {
        self.headers = headers
    }

    /// Adds a row; it needs one cell per column. Control characters in a cell are escaped
    /// (``TerminalText/escaped(_:)``): cells come from clients and files.
    mutating func append(_ row: String...) {
        precondition(row.count == headers.count, "a row needs one cell per column")
        rows.append(row.map(TerminalText.escaped))
    }

    /// The table as lines; the last column is not padded, so no line ends in spaces.
    var rendered: String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            .joined(separator: "  ")
        }
        .joined(separator: "\n")
    }
}
