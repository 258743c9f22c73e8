// SPDX-License-Identifier: Apache-2.0

/// How long a test waits for something that must happen before it calls it a hang.
///
/// These are hang guards, not speed targets: generous, so that a machine at load 9 on two cores
/// never reaches them and a test that passes only fails when something really never happens.
/// What a test checks is ordering (hold points, ``ManualClock``); speed is measured by
/// `make bench`. The drivers in Tests/EndToEndTests/Clients use the same values (harness.py).
public enum HangGuard {
    /// Any one wait: a reply, a signal, a child process, a condition polled for.
    public static let step = Duration.seconds(120)
    /// A whole driver script or child process that runs many steps; also the prompt timeout a test
    /// sets when an answer within ``step`` must mean a dismissal, never the timeout.
    public static let driver = Duration.seconds(600)
    /// Minutes a whole test may take, for Swift Testing's `.timeLimit(.minutes(_:))`: above
    /// ``driver``, so that the guard inside a test is the one that reports.
    public static let testMinutes = 15
}
