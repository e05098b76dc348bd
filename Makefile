# rotationd: build, demo, test and install.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(DESTDIR)$(PREFIX)/bin
SWIFT ?= swift
SWIFT_FLAGS ?=
RELEASE = $(SWIFT) build -c release --static-swift-stdlib $(SWIFT_FLAGS)

.PHONY: all deps build release demo test bench install uninstall clean

all: build

deps:
	./scripts/install-deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

release: deps
	$(RELEASE)

# The main job on the built-in default: replay the bundled trace in real time, rotwatch-style.
demo: release
	./scripts/demo.sh

# Every test: unit tests, umockdev sensor tests and service tests with real processes.
test: deps
	./scripts/test.sh

bench: release
	./scripts/bench-quality.sh
	./scripts/bench-engine.sh

install: release
	install -d $(BINDIR)
	install -m 0755 .build/release/rotationd .build/release/rotwatch $(BINDIR)/

clean:
	rm -rf .build
