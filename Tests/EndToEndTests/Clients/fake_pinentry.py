#!/usr/bin/python3
"""fake_pinentry.py - a pinentry for tests: speaks the Assuan commands puffd sends and answers
GETPIN from a script.

FAKE_PINENTRY_ANSWERS names a file with one answer per line, consumed one per GETPIN across runs:
a passcode, or CANCEL (the person pressed Cancel). FAKE_PINENTRY_LOG names a file that gets every
command except the PIN's data: `GETPIN` and the SETTITLE/SETDESC/SETPROMPT/SETERROR/OPTION lines
with their arguments. The test reads it to see what the person was shown.
"""

import os
import sys


def reply(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def next_answer():
    path = os.environ["FAKE_PINENTRY_ANSWERS"]
    with open(path) as f:
        lines = f.read().split("\n")
    with open(path, "w") as f:
        f.write("\n".join(lines[1:]))
    return lines[0]


def escape(text):
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def main():
    log = open(os.environ["FAKE_PINENTRY_LOG"], "a")
    reply("OK Pleased to meet you")
    for line in sys.stdin:
        line = line.rstrip("\n")
        command = line.split(" ", 1)[0]
        log.write(line + "\n")
        log.flush()
        if command == "GETPIN":
            answer = next_answer()
            if answer == "CANCEL":
                reply("ERR 83886179 Operation cancelled <Pinentry>")
            else:
                reply("D " + escape(answer))
                reply("OK")
        elif command == "BYE":
            reply("OK closing connection")
            return
        else:
            reply("OK")


if __name__ == "__main__":
    main()
