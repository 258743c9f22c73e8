// SPDX-License-Identifier: Apache-2.0
import PuffText
import Synchronization

/// Shows how far a long command has got: a bar redrawn on one line of a terminal (count, rate,
/// time left) and cleared at the end, one JSON object per line with `--json`, or nothing.
///
/// Redraws at most ``interval`` apart (puffd already sends at most ten a second); time comes from
/// `now`, so tests move a manual clock instead of sleeping. Only numbers and puffctl's own words
/// are shown: no label, value or secret ever reaches progress output.
final class ProgressReporter: Sendable {
    /// How progress is shown.
    enum Style: Sendable, Equatable {
        /// A bar on a terminal, redrawn in place.
        case bar
        /// `{"progress":{...}}` lines, for scripts (`--json`).
        case json
        /// Nothing (standard error is not a terminal and no `--json`).
        case none
    }

    /// The least time between two redraws.
    static let interval: Duration = .milliseconds(100)
    /// What a terminal is given to erase the bar's line: back to its start, erase to its end.
    static let clearLine = "\r\u{1B}[K"

    private struct State {
        var first: (time: Duration, done: UInt64)?
        var lastDrawn: Duration?
        var showing = false
        var finished = false
    }

    private let operation: String
    private let style: Style
    private let write: @Sendable (String) -> Void
    private let columns: @Sendable () -> Int
    private let now: @Sendable () -> Duration
    private let state = Mutex(State())

    /// A reporter for `operation` (puffctl's name of the command, shown before the bar).
    ///
    /// - Parameters:
    ///   - write: Where text goes (standard error).
    ///   - columns: The terminal's width, read at each redraw.
    ///   - now: Time since any fixed start.
    init(
        operation: String, style: Style, write: @escaping @Sendable (String) -> Void,
        columns: @escaping @Sendable () -> Int, now: @escaping @Sendable () -> Duration
    ) {
        self.operation = TerminalText.escaped(operation)
        self.style = style
        self.write = write
        self.columns = columns
        self.now = now
    }

    /// Takes one update; draws it unless the last redraw was less than ``interval`` ago (the last
    /// update, `done == total`, always gets a JSON line).
    func update(_ update: ProgressUpdate) {
        guard style != .none else { return }
        state.withLock { state in
            guard !state.finished else { return }
            let time = now()
            if state.first == nil { state.first = (time, update.done) }
            let isLast = update.total > 0 && update.done >= update.total
            if let last = state.lastDrawn, time - last < Self.interval, !(style == .json && isLast) { return }
            state.lastDrawn = time
            let rate = Self.rate(from: state.first!, to: (time, update.done))
            switch style {
            case .bar:
                if !state.showing { ProgressInterrupt.arm() }
                state.showing = true
                write(Self.clearLine + ProgressLine.bar(operation, update, rate: rate, columns: columns()))
            case .json:
                write(ProgressLine.json(operation, update, rate: rate) + "\n")
            case .none: break
            }
        }
    }

    /// Ends the display: erases the bar's line if one is drawn. Call on every way out (success,
    /// error); later updates are ignored. `SIGINT` and the other ending signals erase it too.
    func finish() {
        state.withLock { state in
            guard !state.finished else { return }
            state.finished = true
            guard state.showing else { return }
            state.showing = false
            write(Self.clearLine)
            ProgressInterrupt.disarm()
        }
    }

    /// Units per second since the first update, or nil while nothing can be measured.
    static func rate(from first: (time: Duration, done: UInt64), to now: (time: Duration, done: UInt64)) -> Double? {
        let seconds =
            Double((now.time - first.time).components.attoseconds) / 1e18
            + Double((now.time - first.time).components.seconds)
        guard seconds > 0, now.done > first.done else { return nil }
        return Double(now.done - first.done) / seconds
    }
}
