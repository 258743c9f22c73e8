// SPDX-License-Identifier: Apache-2.0
import PuffClient

await Puffctl.main()
