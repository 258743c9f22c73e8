// SPDX-License-Identifier: Apache-2.0
import CSodium

/// The one place that initialises libsodium; every libsodium call in Puff goes through a type that
/// touches ``Sodium/ready`` first.
enum Sodium {
    /// Runs `sodium_init` once per process. libsodium documents it as safe to call repeatedly,
    /// but a failure means no usable RNG, which no caller can recover from.
    static let ready: Void = {
        guard sodium_init() >= 0 else {
            fatalError("libsodium could not be initialised (no entropy source?)")
        }
    }()
}
