// SPDX-License-Identifier: Apache-2.0

/// Puff's version, in one place: `puffd --version`, `puffctl --version`, the `version` that
/// `io.puff.Control1.Status` reports, and the Debian packages' version (packaging/debian/changelog;
/// `VersionTests` fails when the two differ).
public enum PuffVersion {
    /// The release, as in the Debian changelog's top entry.
    public static let current = "0.2"
}
