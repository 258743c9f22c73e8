#!/usr/bin/python3
"""terminal_unlock.py - run `puffctl unlock` on a terminal (a pty) and type passcodes at its
prompts, as a person would (issue 24 item 22: wrong-passcode delays are announced).

    /usr/bin/python3 terminal_unlock.py PUFFCTL PASSCODE_FILE

PASSCODE_FILE holds one passcode a line, typed in turn at each `Passcode for` prompt. Prints one
JSON line: {"status": exit status, "output": what puffctl wrote on the terminal}. Echo is off
on the terminal while a passcode is read, so the output holds no passcode.
"""

import json
import os
import pty
import select
import sys

from harness import HANG_GUARD


def main():
    puffctl, passcode_file = sys.argv[1], sys.argv[2]
    with open(passcode_file, "rb") as answers_file:
        answers = answers_file.read().splitlines()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(puffctl, [puffctl, "unlock"])
    output, typed = b"", 0
    while True:
        ready, _, _ = select.select([fd], [], [], HANG_GUARD)
        if not ready:
            break
        try:
            data = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        output += data
        while typed < len(answers) and output.count(b"Passcode for") > typed:
            os.write(fd, answers[typed] + b"\n")
            typed += 1
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"status": os.waitstatus_to_exitcode(status), "output": output.decode(errors="replace")}))


if __name__ == "__main__":
    main()
