// SPDX-License-Identifier: Apache-2.0
import PuffClient
import PuffDaemon

// One program, two names (issue 27 item 10): `make install` and the package put it at bin/puffctl
// and, as a hard link, at libexec/puff/puffd, so the static Swift runtime and the code both share
// are on disk once. Started under the name `puffd` (D-Bus activation, the user unit, pam_puff), it
// is puffd; under any other name, puffctl.
if CommandLine.arguments.first?.split(separator: "/").last == "puffd" {
    await PuffDaemon.runFromCommandLine()
} else {
    await Puffctl.main()
}
