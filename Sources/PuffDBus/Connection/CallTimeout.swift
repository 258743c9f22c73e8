// SPDX-License-Identifier: Apache-2.0
import Glibc

/// How long a method call waits for its reply when the caller names no other time: libdbus's own
/// default, 25 s, unless `PUFF_BUS_CALL_TIMEOUT` (whole seconds, 1–3600) says otherwise.
///
/// `make test` sets it to 300: a test process runs hundreds of tests at once on two cores, and on a
/// machine busy with other builds (load 29 seen) a served reply was once later than 25 s, which
/// failed tests for the machine's slowness, not for what they check. Longer waits change nothing
/// for a call that is answered.
public enum CallTimeout {
    /// The wait for calls that name none.
    public static let standard: Duration = {
        guard let text = getenv("PUFF_BUS_CALL_TIMEOUT").map({ String(cString: $0) }),
            let seconds = Int(text), (1...3600).contains(seconds)
        else { return .seconds(25) }
        return .seconds(seconds)
    }()

    /// `minimum`, or ``standard`` when that is longer.
    public static func atLeast(_ minimum: Duration) -> Duration {
        max(minimum, standard)
    }
}
