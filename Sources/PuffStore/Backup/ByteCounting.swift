// SPDX-License-Identifier: Apache-2.0

/// Told how many bytes a long store operation (a backup's copy, a restore's unpacking, a vault
/// check) has just done, so a caller can show how far it has got. Called often and from the
/// thread doing the work; it must be cheap and must not block (the service's `ProgressMeter`
/// throttles what it passes on).
public typealias ByteCounting = @Sendable (Int) -> Void
