// SPDX-License-Identifier: Apache-2.0

/// Names of puffd's own interfaces (dbus/io.puff.Control1.xml, dbus/io.puff.Agent1.xml) and its
/// error names: the one place puffd, puffctl and the tests take them from.
public enum ControlContract {
    /// The well-known name puffd's control connection owns; nothing else serves ``interface``, so
    /// a proxy rule for the Secret Service's name does not reach it.
    public static let busName = "io.puff.Control"
    /// The object that serves ``interface``.
    public static let path = "/io/puff/Control"
    /// puffd's private control interface.
    public static let interface = "io.puff.Control1"

    /// `io.puff.Agent1`, served by `puffctl agent` and called by puffd.
    public enum Agent {
        public static let interface = "io.puff.Agent1"
        public static let path = "/io/puff/Agent"
    }

    /// puffd's own error names, `io.puff.Error.*`.
    public enum ErrorName {
        /// The passcode does not open the collection.
        public static let wrongPasscode = "io.puff.Error.WrongPasscode"
        /// No visible collection by that id.
        public static let noSuchCollection = "io.puff.Error.NoSuchCollection"
        /// No passcode set yet.
        public static let notInitialized = "io.puff.Error.NotInitialized"
        /// `Init` on a vault that has its login collection.
        public static let alreadyInitialized = "io.puff.Error.AlreadyInitialized"
        /// The new passcode breaks the collection's policy.
        public static let passcodePolicy = "io.puff.Error.PasscodePolicy"
        /// The collection's files failed to open.
        public static let damaged = "io.puff.Error.Damaged"
        /// The call needs the collection unlocked.
        public static let isLocked = "io.puff.Error.IsLocked"
        /// A change that weakens protection got no consent.
        public static let notConfirmed = "io.puff.Error.NotConfirmed"
        /// A TPM or security key did not give a slot's key.
        public static let hardware = "io.puff.Error.Hardware"
        /// The security key's PIN is needed, wrong or blocked.
        public static let securityKeyPIN = "io.puff.Error.SecurityKeyPIN"
        /// No slot of that number, or none the credential opens.
        public static let noSuchSlot = "io.puff.Error.NoSuchSlot"
        /// Removing the slot would leave the collection with none.
        public static let lastSlot = "io.puff.Error.LastSlot"
        /// A re-key would drop slots whose credential is not at hand.
        public static let wouldDropSlots = "io.puff.Error.WouldDropSlots"
        /// A fleet collection's shared store cannot be reached: the write was not saved.
        public static let offline = "io.puff.Error.Offline"

        /// Every name above, for checks against the interface files and docs.
        public static let all = [
            wrongPasscode, noSuchCollection, notInitialized, alreadyInitialized, passcodePolicy, damaged, isLocked,
            notConfirmed, hardware, securityKeyPIN, noSuchSlot, lastSlot, wouldDropSlots, offline,
        ]
    }
}
