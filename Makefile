# rotationd: build, demo, test and install.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(DESTDIR)$(PREFIX)/bin
# udev and systemd also read rules and units under /usr/local/lib; PREFIX=/usr puts them in /usr/lib.
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
UNITDIR ?= $(PREFIX)/lib/systemd/system
SWIFT ?= swift
SWIFT_FLAGS ?=
RELEASE = $(SWIFT) build -c release --static-swift-stdlib $(SWIFT_FLAGS)

.PHONY: all deps build release demo test bench install install-data uninstall clean

all: build

deps:
	./scripts/install-deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

release: deps
	$(RELEASE)

# The main job on the built-in default: rotationd serves the bundled trace in real time and rotwatch follows it.
demo: release
	./scripts/demo.sh

# Every test: unit tests, umockdev sensor tests and service tests with real processes.
test: deps
	./scripts/test.sh

bench: release
	./scripts/bench-quality.sh
	./scripts/bench-engine.sh
	./scripts/bench-fanout.sh
	./scripts/bench-live.sh

# Installs the binaries from BUILD_DIR as they are (for packaging: build first, then install with DESTDIR,
# possibly as another user). Only when they are missing from the default BUILD_DIR does it build a release,
# without installing build dependencies.
BUILD_DIR ?= .build/release
install: install-data
	@if [ ! -x $(BUILD_DIR)/rotationd ] || [ ! -x $(BUILD_DIR)/rotwatch ]; then \
		if [ "$(BUILD_DIR)" = .build/release ]; then $(RELEASE); \
		else echo "make install: no rotationd and rotwatch in BUILD_DIR=$(BUILD_DIR); build them first" >&2; exit 1; fi; \
	fi
	install -d $(BINDIR)
	install -m 0755 $(BUILD_DIR)/rotationd $(BUILD_DIR)/rotwatch $(BINDIR)/

# The udev rule and the systemd units; ExecStart points at $(PREFIX)/bin/rotationd.
install-data:
	install -d $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(UNITDIR)
	install -m 0644 udev-rules/60-rotationd.rules $(DESTDIR)$(UDEVRULESDIR)/
	sed 's|@BINDIR@|$(PREFIX)/bin|g' systemd/rotationd.service.in > $(DESTDIR)$(UNITDIR)/rotationd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/rotationd.service
	install -m 0644 systemd/rotationd.socket $(DESTDIR)$(UNITDIR)/

uninstall:
	rm -f $(BINDIR)/rotationd $(BINDIR)/rotwatch
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-rotationd.rules
	rm -f $(DESTDIR)$(UNITDIR)/rotationd.service $(DESTDIR)$(UNITDIR)/rotationd.socket

clean:
	rm -rf .build
