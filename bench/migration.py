#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The import, backup and verify tables of a bench run (docs/benchmarks.md), from the
migration.tsv bench/run.sh writes: one line per number, `case  round  key  value`.

    bench/migration.py MIGRATION_TSV [--smoke]     (Markdown on stdout; --smoke: no targets table)
"""
import statistics
import sys
from collections import defaultdict

IMPORT_TARGET_MS = 2000  # import of 10,000 items beyond its KDF
GETSECRET_P99_TARGET_US = 10000
BACKUP_TARGET_MS = 3000  # backup, and verify, of a 100,000-item vault
TARGET_IMPORT_ITEMS = 10000
TARGET_VAULT_ITEMS = 100000


def load(path):
    data = defaultdict(dict)  # (case, round) -> key -> value
    with open(path, encoding="utf-8") as f:
        for line in f:
            case, rnd, key, value = line.rstrip("\n").split("\t")
            data[(case, int(rnd))][key] = float(value)
    return data


def rounds_of(data, case):
    return sorted(r for (c, r) in data if c == case and r > 0)


def cell(values, key, fmt="{:,.0f}"):
    return fmt.format(values[key]) if key in values else "–"


def us(v):
    return f"{v / 1000:.2f} ms" if v >= 1000 else f"{v:.0f} µs"


def summary(values, unit_fmt):
    """median (min–max, load L–H) over the rounds: a list of (value, load)."""
    if not values:
        return None, "not measured"
    nums = [v for v, _ in values]
    loads = [l for _, l in values if l is not None]
    med = statistics.median(nums)
    text = unit_fmt(med)
    if len(nums) > 1:
        text += f" (median of {len(nums)}; {unit_fmt(min(nums))}–{unit_fmt(max(nums))})"
    if loads:
        lo, hi = min(loads), max(loads)
        text += f", load {lo:.1f}" if lo == hi else f", load {lo:.1f}–{hi:.1f}"
    return med, text


def met(value, target, at_size):
    if value is None:
        return "not measured"
    if not at_size:
        return "not at the target's size"
    return "yes" if value <= target else "**no**"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    data = load(sys.argv[1])
    smoke = "--smoke" in sys.argv[2:]
    out = []
    items = int(data[("vault", 0)].get("items", 0))
    imported = int(data[("import", 0)].get("items", 0))

    beyond, p99s, p50s, call_p99s, whole, kdfs = [], [], [], [], [], []
    if rounds_of(data, "import"):
        source = data[("import", 0)].get("source_bytes", 0)
        out.append(f"\n### Import of a {imported:,}-item gnome-keyring file while another client reads\n")
        out.append(
            f"Source: {imported:,} items in one binary keyring ({source / 1048576:.1f} MiB) written by "
            "`PuffBenchKeyring` with Puff's gnome-keyring writer; each round imports it into `login` of a new "
            "vault with `puffctl import --source-passcode-fd`. The reading client calls `Item.GetSecret` on "
            "its own item on a schedule of one call every 2 ms, first alone for a second, then from the exec of "
            "`puffctl import` to its exit. A call's wait is counted from its slot in the schedule (a call "
            "held up by the provider delays the next ones, which are then sent at once and counted from "
            "their own slots), so a stall weighs as long as it lasts; \"per call\" is send → reply. "
            "Load: the 1-minute load average at the start of the round.\n"
        )
        out.append(
            "| round | load | KDF of the source, ms | `puffctl import`, ms | beyond its KDF, ms "
            "| import of an empty keyring, ms | GetSecret alone: p50 / p99 | GetSecret during: p50 / p99 / max "
            "| per call during: p99 / max | calls during |"
        )
        out.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in rounds_of(data, "import"):
            imp, kdf = data[("import", r)], data.get(("kdf", r), {})
            empty = data.get(("import-empty", r), {})
            load_ = imp.get("load")
            extra = None
            if "command_ms" in imp and "ms" in kdf:
                extra = imp["command_ms"] - kdf["ms"]
                beyond.append((extra, load_))
                whole.append((imp["command_ms"], load_))
                kdfs.append((kdf["ms"], kdf.get("load")))
            if "during_sched_p99_us" in imp:
                p99s.append((imp["during_sched_p99_us"], load_))
                p50s.append((imp["during_sched_p50_us"], load_))
                call_p99s.append((imp["during_p99_us"], load_))
            base = (
                f"{us(imp['baseline_sched_p50_us'])} / {us(imp['baseline_sched_p99_us'])}"
                if "baseline_sched_p99_us" in imp
                else "–"
            )
            during = (
                f"{us(imp['during_sched_p50_us'])} / {us(imp['during_sched_p99_us'])} / "
                f"{us(imp['during_sched_max_us'])}"
                if "during_sched_p99_us" in imp
                else "–"
            )
            per_call = f"{us(imp['during_p99_us'])} / {us(imp['during_max_us'])}" if "during_p99_us" in imp else "–"
            out.append(
                f"| {r} | {cell(imp, 'load', '{:.1f}')} | {cell(kdf, 'ms', '{:,.1f}')} | {cell(imp, 'command_ms')} "
                f"| {'–' if extra is None else f'{extra:,.0f}'} | {cell(empty, 'ms')} | {base} | {during} | {per_call} "
                f"| {cell(imp, 'during_calls')} |"
            )

    backups, verifies, backup_checks = [], [], []
    if rounds_of(data, "backup"):
        out.append(f"\n### Backup and verify of the {items:,}-item vault\n")
        out.append(
            "`puffctl backup FILE` and `puffctl verify` against the running `puffd` right after the fill "
            "(`login` unlocked, so `verify` opens every record), and `puffctl verify --backup FILE` (no "
            "`puffd`); wall time from the exec to the exit.\n"
        )
        out.append("| round | load | backup, ms | backup size | verify, ms | load | verify --backup, ms |")
        out.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in rounds_of(data, "backup"):
            b, v = data[("backup", r)], data.get(("verify", r), {})
            vb = data.get(("verify-backup", r), {})
            if "ms" in b:
                backups.append((b["ms"], b.get("load")))
            if "ms" in v:
                verifies.append((v["ms"], v.get("load")))
            if "ms" in vb:
                backup_checks.append((vb["ms"], vb.get("load")))
            size = f"{b['bytes'] / 1048576:.1f} MiB" if "bytes" in b else "–"
            out.append(
                f"| {r} | {cell(b, 'load', '{:.1f}')} | {cell(b, 'ms')} | {size} | {cell(v, 'ms')} "
                f"| {cell(v, 'load', '{:.1f}')} | {cell(vb, 'ms')} |"
            )

    if not smoke:
        ms = lambda v: f"{v:,.0f} ms"
        at_import = imported == TARGET_IMPORT_ITEMS
        at_vault = items >= TARGET_VAULT_ITEMS
        out.append(f"\n### Targets of the migration issue\n")
        out.append("| target | measured | met |")
        out.append("| --- | --- | --- |")
        value, text = summary(beyond, ms)
        out.append(
            f"| import of {imported:,} items from a gnome-keyring file ≤ 2 s beyond its KDF "
            f"(`puffctl import`, exec to exit, minus the KDF) | {text} | {met(value, IMPORT_TARGET_MS, at_import)} |"
        )
        value, text = summary(p99s, us)
        out.append(
            f"| another client's `GetSecret` p99 during the import ≤ 10 ms (waited from its slot in a 2 ms schedule) | {text} "
            f"| {met(value, GETSECRET_P99_TARGET_US, at_import)} |"
        )
        value, text = summary(backups, ms)
        out.append(f"| backup of a {items:,}-item vault ≤ 3 s | {text} | {met(value, BACKUP_TARGET_MS, at_vault)} |")
        value, text = summary(verifies, ms)
        out.append(f"| verify of a {items:,}-item vault ≤ 3 s | {text} | {met(value, BACKUP_TARGET_MS, at_vault)} |")
        for label, values, fmt in (
            ("(for reference: the whole `puffctl import`)", whole, ms),
            ("(for reference: the source's KDF alone, in-process)", kdfs, lambda v: f"{v:,.1f} ms"),
            ("(for reference: `GetSecret` p50 during the import, from its slot)", p50s, us),
            ("(for reference: `GetSecret` p99 during the import, per call: send → reply)", call_p99s, us),
            ("(for reference: `puffctl verify --backup` of that backup, without puffd)", backup_checks, ms),
        ):
            out.append(f"| {label} | {summary(values, fmt)[1]} | – |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
