# rotationd: build, demo, test and install.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(DESTDIR)$(PREFIX)/bin
# udev and systemd also read rules, units and sysusers.d files under /usr/local/lib; PREFIX=/usr puts them in
# /usr/lib.
UDEVDIR ?= $(PREFIX)/lib/udev
UDEVRULESDIR ?= $(UDEVDIR)/rules.d
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MANDIR ?= $(PREFIX)/share/man
BASHCOMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
DOCDIR ?= $(PREFIX)/share/doc/rotationd
SWIFT ?= swift
SWIFT_FLAGS ?=
# The release build: the Swift runtime and standard library linked in, by lld, so that the code the service
# runs lies together (each function in a section of its own, the ones listed in data/hot-functions.txt first;
# scripts/hot-functions.sh lists them) and start-up reads little besides it: relative relocations packed
# (DT_RELR, glibc 2.36 or later), no symbols exported from the executables. See Docs/memory.md.
# Full RELRO: the relocated data is made read-only, and every symbol is bound at start-up (-z now), so the GOT
# is read-only too.
LINK_HARDENING = -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
RELEASE = $(SWIFT) build -c release --static-swift-stdlib -Xswiftc -use-ld=lld \
	-Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xlinker --symbol-ordering-file=$(CURDIR)/data/hot-functions.txt -Xlinker --no-warn-symbol-ordering \
	-Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic $(LINK_HARDENING) $(SWIFT_FLAGS)

.PHONY: all deps build release binaries man deb demo test test-sanitizers fuzz bench install install-data uninstall clean

all: build

deps:
	./scripts/install-deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

release: deps binaries

# The release build alone, without installing build dependencies: the two commands the package ships and
# follow-rotation, the subscriber the memory report measures (the fuzz targets and benchmarks build their own).
RELEASE_PRODUCTS = rotationd rotwatch follow-rotation
binaries:
	for p in $(RELEASE_PRODUCTS); do $(RELEASE) --product $$p || exit 1; done

# The man pages, from their scdoc sources in man/.
MANPAGES = build/man/rotationd.8 build/man/rotwatch.1
man: $(MANPAGES)
build/man/%: man/%.scd
	@mkdir -p build/man
	scdoc < $< > $@

# A binary Debian package in dist/, built by debhelper (debian/rules) from the release build. Its version
# is the one the built rotationd prints.
deb: release
	./scripts/debian-changelog.sh "$$($(BUILD_DIR)/rotationd --version | cut -d' ' -f2)" > debian/changelog
	dpkg-checkbuilddeps
	debian/rules binary

# The main job on the built-in default: rotationd serves the bundled trace in real time and rotwatch follows it.
demo: release
	./scripts/demo.sh

# Every test: unit tests, umockdev sensor tests and service tests with real processes.
test: deps
	./scripts/test.sh

# The whole suite with the tests and every program they start built under ThreadSanitizer, then under
# AddressSanitizer (scripts/test-sanitizers.sh); a sanitizer report fails the test that met it. The packaging
# tests read the package, hence deb first.
test-sanitizers: deps deb
	SWIFT=$(SWIFT) ./scripts/test-sanitizers.sh

# Every fuzz target (Docs/fuzzing.md) as a libFuzzer fuzzer for FUZZ_SECONDS each, from the seed corpora in
# Fuzz/corpus; a finding fails the run and is left in .build/fuzz/findings.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) ./scripts/fuzz.sh

# The memory report and the live bench first: the others build rotationd with the default link.
bench: release
	./scripts/memory-report.sh
	./scripts/bench-live.sh
	./scripts/bench-drivers.sh
	./scripts/bench-quality.sh
	./scripts/bench-engine.sh
	./scripts/bench-fanout.sh

# Installs the binaries from BUILD_DIR as they are (for packaging: build first, then install with DESTDIR,
# possibly as another user). Only when they are missing from the default BUILD_DIR does it build a release,
# without installing build dependencies.
BUILD_DIR ?= .build/release
install: install-data
	@if [ ! -x $(BUILD_DIR)/rotationd ] || [ ! -x $(BUILD_DIR)/rotwatch ]; then \
		if [ "$(BUILD_DIR)" = .build/release ]; then $(MAKE) binaries; \
		else echo "make install: no rotationd and rotwatch in BUILD_DIR=$(BUILD_DIR); build them first" >&2; exit 1; fi; \
	fi
	install -d $(BINDIR)
	install -m 0755 $(BUILD_DIR)/rotationd $(BUILD_DIR)/rotwatch $(BINDIR)/

# The udev rule and the program it runs (the rule names it at $(UDEVDIR)), the systemd units (ExecStart points
# at $(PREFIX)/bin/rotationd), the service's sysusers.d file, the man pages, the bash completions and the
# documents.
install-data: man
	install -d $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR)
	sed 's|@UDEVLIBDIR@|$(UDEVDIR)|g' udev-rules/60-rotationd.rules > $(DESTDIR)$(UDEVRULESDIR)/60-rotationd.rules
	chmod 0644 $(DESTDIR)$(UDEVRULESDIR)/60-rotationd.rules
	install -m 0755 udev-rules/rotationd-access $(DESTDIR)$(UDEVDIR)/
	sed 's|@BINDIR@|$(PREFIX)/bin|g' systemd/rotationd.service.in > $(DESTDIR)$(UNITDIR)/rotationd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/rotationd.service
	install -m 0644 systemd/rotationd.socket $(DESTDIR)$(UNITDIR)/
	install -m 0644 systemd/rotationd.sysusers $(DESTDIR)$(SYSUSERSDIR)/rotationd.conf
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8
	install -m 0644 build/man/rotwatch.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 build/man/rotationd.8 $(DESTDIR)$(MANDIR)/man8/
	install -d $(DESTDIR)$(BASHCOMPLETIONDIR)
	install -m 0644 completions/rotationd completions/rotwatch $(DESTDIR)$(BASHCOMPLETIONDIR)/
	install -d $(DESTDIR)$(DOCDIR)/examples
	install -m 0644 README.md Docs/*.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 Docs/examples/* $(DESTDIR)$(DOCDIR)/examples/

uninstall:
	rm -f $(BINDIR)/rotationd $(BINDIR)/rotwatch
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-rotationd.rules $(DESTDIR)$(UDEVDIR)/rotationd-access
	rm -f $(DESTDIR)$(SYSUSERSDIR)/rotationd.conf
	rm -f $(DESTDIR)$(UNITDIR)/rotationd.service $(DESTDIR)$(UNITDIR)/rotationd.socket
	rm -f $(DESTDIR)$(MANDIR)/man1/rotwatch.1 $(DESTDIR)$(MANDIR)/man8/rotationd.8
	rm -f $(DESTDIR)$(BASHCOMPLETIONDIR)/rotationd $(DESTDIR)$(BASHCOMPLETIONDIR)/rotwatch
	rm -rf $(DESTDIR)$(DOCDIR)

clean:
	rm -rf .build build dist
	rm -rf debian/rotationd debian/.debhelper debian/tmp
	rm -f debian/changelog debian/files debian/*.substvars debian/*.debhelper debian/*.debhelper.log debian/debhelper-build-stamp
