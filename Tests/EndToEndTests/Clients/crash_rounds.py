#!/usr/bin/python3
"""crash_rounds.py - kill -9 puffd during a stream of writes, restart, and check every
acknowledged write (issue 13, "Crash").

    /usr/bin/python3 crash_rounds.py --puffd PATH --puffctl PATH --data-dir DIR \
        [--rounds 50] [--writers 3] [--check-grouping] [--seed N]

DBUS_SESSION_BUS_ADDRESS names a private bus on which nothing else owns
org.freedesktop.secrets. Round 0 runs `puffctl init`; every round then starts
puffd on the same file vault, unlocks it, checks the vault against the model,
starts several writer threads (each its own D-Bus connection, so its own
client) streaming CreateItem / SetSecret / Delete on items it alone owns, and
kills puffd with SIGKILL at a random moment.

The model: a write is acknowledged when its reply arrived; it must then be
there after the restart with its exact secret. Each writer has at most one
write in flight when puffd dies; that one may or may not have happened, but
nothing else may differ, and every item found must give its secret.

With --check-grouping puffd logs at debug level, and the run also fails unless
some journal flush made more than one record durable (the log line
`journal flush records=K` with K > 1, design core-reshaped §6): the writers'
appends were really grouped, not flushed one by one. Not every round: the kill
lands at a random moment, and a round cut short after a few writes may not
have had two of them in flight at once (CI at load 20: 11 writes, no group).

Prints `ok round N` or `FAIL round N: <reason>` (key names and counts only,
never a secret), then `N passed, M failed`.
"""

import argparse
import os
import re
import random
import sys
import threading
import time

sys.dont_write_bytecode = True  # keep the source tree clean

import secretstorage  # noqa: E402

from harness import HANG_GUARD  # noqa: E402
from puffd_process import Puffd, puffctl  # noqa: E402

ATTRIBUTE = "puff-crash-key"
FLUSH_LINE = re.compile(rb"journal flush records=(\d+)")
MAX_KEYS_PER_WRITER = 12


class Writer(threading.Thread):
    """Streams writes on its own keys until puffd goes away; `model` holds what was acknowledged."""

    def __init__(self, number, round_number, model, rng):
        super().__init__(daemon=True)
        self.prefix = f"w{number}-"
        self.round = round_number
        self.model = model  # key -> secret, shared; this writer touches only its own keys
        self.rng = rng
        self.pending = None  # (key, secret or None for a delete) while a write is in flight
        self.acknowledged = 0
        self.first_acknowledged = threading.Event()

    def own_keys(self):
        return sorted(k for k in self.model if k.startswith(self.prefix))

    def run(self):
        try:
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            items = {}
            for item in collection.search_items({}):
                key = item.get_attributes().get(ATTRIBUTE, "")
                if key.startswith(self.prefix):
                    items[key] = item
            counter = 0
            while True:
                keys = self.own_keys()
                choice = self.rng.random()
                if not keys or (choice < 0.5 and len(keys) < MAX_KEYS_PER_WRITER):
                    counter += 1
                    key = f"{self.prefix}r{self.round}-{counter}"
                    secret = os.urandom(self.rng.randrange(1, 200))
                    self.pending = (key, secret)
                    items[key] = collection.create_item(
                        f"crash {key}", {ATTRIBUTE: key}, secret, replace=False)
                elif choice < 0.8:
                    key = self.rng.choice(keys)
                    secret = os.urandom(self.rng.randrange(1, 200))
                    self.pending = (key, secret)
                    items[key].set_secret(secret)
                else:
                    key = self.rng.choice(keys)
                    self.pending = (key, None)
                    items.pop(key).delete()
                key, secret = self.pending
                if secret is None:
                    del self.model[key]
                else:
                    self.model[key] = secret
                self.pending = None
                self.acknowledged += 1
                self.first_acknowledged.set()
        except Exception:
            # puffd was killed: the call in flight (self.pending) may or may not have happened.
            self.first_acknowledged.set()


def verify(model, pendings):
    """Checks the vault against `model`, allowing each in-flight write either way; on success
    updates `model` to what the vault holds. Returns a value-free reason, or None."""
    connection = secretstorage.dbus_init()
    try:
        collection = secretstorage.get_default_collection(connection)
        if collection.is_locked():
            return "the default collection is still locked after puffctl unlock"
        found = {}
        for item in collection.search_items({}):
            key = item.get_attributes().get(ATTRIBUTE)
            if key is None:
                continue
            if key in found:
                return f"two items carry {key}"
            try:
                found[key] = item.get_secret()
            except Exception as error:
                return f"{key} exists without a readable secret ({type(error).__name__})"
    finally:
        connection.close()
    in_flight = {key: secret for key, secret in pendings}
    for key in set(model) | set(found):
        allowed = [model.get(key)]
        if key in in_flight:
            allowed.append(in_flight[key])
        if found.get(key) not in allowed:
            if key not in found:
                return f"{key} was acknowledged and is gone"
            if model.get(key) is None and key not in in_flight:
                return f"{key} exists but was never written"
            return f"{key} holds a secret that was never acknowledged for it"
    model.clear()
    model.update(found)
    return None


def largest_flush(log_path, start):
    """The most records one journal flush made durable, by puffd's debug log from `start` on."""
    with open(log_path, "rb") as log:
        log.seek(start)
        return max((int(count) for count in FLUSH_LINE.findall(log.read())), default=0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--puffd", required=True)
    parser.add_argument("--puffctl", required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--writers", type=int, default=3)
    parser.add_argument("--check-grouping", action="store_true")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    args.log_level = "debug" if args.check_grouping else "info"
    rng = random.Random(args.seed)
    print(f"seed {args.seed}", flush=True)
    log_path = os.path.join(os.path.dirname(args.data_dir.rstrip("/")), "crash-puffd.log")
    log = open(log_path, "ab")
    model = {}
    pendings = []
    passed = failed = acknowledged = 0
    largest_group = 0
    for round_number in range(args.rounds):
        try:
            daemon = Puffd(args, log)
        except RuntimeError as error:
            failed += 1
            print(f"FAIL round {round_number}: {error}", flush=True)
            break
        status = puffctl(args, "init", "--stdin") if round_number == 0 else puffctl(args, "unlock", "--stdin")
        if status != 0:
            reason = f"puffctl {'init' if round_number == 0 else 'unlock'} exited {status}"
        else:
            reason = verify(model, pendings)
        if reason is not None:
            failed += 1
            print(f"FAIL round {round_number}: {reason}", flush=True)
            daemon.kill()
            break
        log.flush()
        round_log_start = os.path.getsize(log_path)
        writers = [Writer(n, round_number, model, random.Random(rng.random())) for n in range(args.writers)]
        for writer in writers:
            writer.start()
        # The stream is under way once one write was acknowledged; the kill lands at a random
        # moment after that, in the middle of some write of some client.
        for writer in writers:
            writer.first_acknowledged.wait(HANG_GUARD)
        time.sleep(rng.uniform(0.0, 0.3))
        daemon.kill()
        for writer in writers:
            writer.join(HANG_GUARD)
        pendings = [writer.pending for writer in writers if writer.pending is not None]
        round_writes = sum(writer.acknowledged for writer in writers)
        acknowledged += round_writes
        grouped = ""
        if args.check_grouping:
            largest = largest_flush(log_path, round_log_start)
            largest_group = max(largest_group, largest)
            grouped = f", largest flush {largest} records"
        passed += 1
        print(f"ok round {round_number} ({round_writes} writes acknowledged, {len(model)} items{grouped})",
              flush=True)
    # The last kill is checked too: one more start, unlock and verification.
    if failed == 0:
        try:
            daemon = Puffd(args, log)
            status = puffctl(args, "unlock", "--stdin")
            reason = f"puffctl unlock exited {status}" if status != 0 else verify(model, pendings)
            daemon.kill()
        except RuntimeError as error:
            reason = str(error)
        if reason is None:
            passed += 1
            print(f"ok final check ({acknowledged} writes acknowledged in all)", flush=True)
        else:
            failed += 1
            print(f"FAIL final check: {reason}", flush=True)
    if acknowledged == 0:
        failed += 1
        print("FAIL no write was acknowledged in any round", flush=True)
    if args.check_grouping and largest_group < 2:
        failed += 1
        print(f"FAIL no journal flush of any round made more than one record durable "
              f"({acknowledged} writes acknowledged in all)", flush=True)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
