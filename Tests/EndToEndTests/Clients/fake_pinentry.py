#!/usr/bin/python3
"""fake_pinentry.py - a pinentry for tests: speaks the Assuan commands puffd sends and answers
GETPIN from a script.

FAKE_PINENTRY_ANSWERS names a file with one answer per line, consumed one per GETPIN across runs:
a passcode, CANCEL (the person pressed Cancel), HOLD (nobody answers: it waits until killed,
after writing its pid to FAKE_PINENTRY_LOG + ".held") or EXIT (it dies mid-question: writes the
same ".held" file, closes its standard input and output and exits without answering). After SETREPEAT, like a real pinentry, one
GETPIN takes two answers and asks again (logging `REPEAT MISMATCH`) until two match; with
FAKE_PINENTRY_NO_REPEAT set it is an old pinentry that answers SETREPEAT with ERR.
CONFIRM takes one answer from the same file, as pinentry's buttons answer (pinentry.c,
cmd_confirm): OK (the OK button: `OK`), NOTOK (the not-OK button: `ERR 83886194 Not confirmed`),
CANCEL (the Cancel button: `ERR 83886179 Operation cancelled`), CLOSE (the window closed:
`S BUTTON_INFO close`, then the same ERR) or HOLD.
An answer `WAIT FILE ANSWER` (GETPIN or CONFIRM) waits until FILE exists, then answers ANSWER: a
person who presses a button only after something else happened (a key waits for its touch).
FAKE_PINENTRY_LOG names a file that gets every command except the PIN's data: `GETPIN`, `CONFIRM`
and the SETTITLE/SETDESC/SETPROMPT/SETERROR/SETREPEAT/SETOK/SETNOTOK/SETCANCEL/OPTION lines with
their arguments. The test reads it to see what the person was shown.
"""

import os
import sys
import time


def reply(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def next_answer():
    path = os.environ["FAKE_PINENTRY_ANSWERS"]
    with open(path) as f:
        lines = f.read().split("\n")
    with open(path, "w") as f:
        f.write("\n".join(lines[1:]))
    if lines[0].startswith("WAIT "):
        _, gate, answer = lines[0].split(" ", 2)
        while not os.path.exists(gate):
            time.sleep(0.02)
        return answer
    return lines[0]


def escape(text):
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def hold():
    # Written aside and renamed: a watcher that acts as soon as the file exists (prompt_client's
    # --disconnect-when) must never find it empty, or the pid is lost when puffd ends this process.
    held = os.environ["FAKE_PINENTRY_LOG"] + ".held"
    with open(held + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(held + ".tmp", held)
    while True:
        time.sleep(60)


def die():
    held = os.environ["FAKE_PINENTRY_LOG"] + ".held"
    with open(held + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(held + ".tmp", held)
    os.close(0)
    os.close(1)
    os._exit(0)


def main():
    log = open(os.environ["FAKE_PINENTRY_LOG"], "a")
    repeat = False
    reply("OK Pleased to meet you")
    for line in sys.stdin:
        line = line.rstrip("\n")
        command = line.split(" ", 1)[0]
        log.write(line + "\n")
        log.flush()
        if command == "GETPIN":
            answer = next_answer()
            if answer == "HOLD":
                hold()
            if answer == "EXIT":
                die()
            while repeat and answer != "CANCEL":
                again = next_answer()
                if again == answer:
                    reply("S PIN_REPEATED")
                    break
                log.write("REPEAT MISMATCH\n")
                log.flush()
                answer = next_answer()
            if answer == "CANCEL":
                reply("ERR 83886179 Operation cancelled <Pinentry>")
            else:
                reply("D " + escape(answer))
                reply("OK")
        elif command == "CONFIRM":
            answer = next_answer()
            if answer == "HOLD":
                hold()
            if answer == "OK":
                reply("OK")
            elif answer == "NOTOK":
                reply("ERR 83886194 Not confirmed <Pinentry>")
            else:
                if answer == "CLOSE":
                    reply("S BUTTON_INFO close")
                reply("ERR 83886179 Operation cancelled <Pinentry>")
        elif command == "SETREPEAT" and os.environ.get("FAKE_PINENTRY_NO_REPEAT"):
            reply("ERR 536871187 Unknown IPC command <User defined source 1>")
        elif command == "BYE":
            reply("OK closing connection")
            return
        else:
            repeat = repeat or command == "SETREPEAT"
            reply("OK")


if __name__ == "__main__":
    main()
