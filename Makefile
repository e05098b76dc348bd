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
# Files the package ships for the administrator to install: the drop-in that turns the tablet-mode switch on.
DATADIR ?= $(PREFIX)/share/rotationd
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

.PHONY: all deps build release binaries clibs qt man deb demo test test-c test-sanitizers fuzz bench install install-c install-qt install-data uninstall clean

all: build

deps:
	./scripts/install-deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)
	$(MAKE) clibs

# The C client library librotationd.so.0 (librotationd/) and the GStreamer element rotationdtag built on it
# (gst/), C11 with gcc and pkg-config, into CBUILD. CFLAGS, CPPFLAGS and LDFLAGS come from the environment
# (dpkg-buildflags in a package build; -fsanitize=... for scripts/test-c.sh). The library exports only its
# API (librotationd/librotationd.map); json-c parses the service's lines.
VERSION := $(shell sed -n 's/.*static let current = "\(.*\)"/\1/p' Sources/RotationProtocol/ServiceVersion.swift)
CFLAGS ?= -O2 -g
CBUILD ?= build/c
C_WARNINGS = -std=c11 -Wall -Wextra -Wformat=2 -Wstrict-prototypes -Wno-unused-parameter
JSONC_CFLAGS = $(shell pkg-config --cflags json-c)
JSONC_LIBS = $(shell pkg-config --libs json-c)
GST_CFLAGS = $(shell pkg-config --cflags gstreamer-1.0 gstreamer-base-1.0)
GST_LIBS = $(shell pkg-config --libs gstreamer-1.0 gstreamer-base-1.0)
LIB_OBJS = $(CBUILD)/client.o $(CBUILD)/message.o
LIB_REAL = librotationd.so.$(VERSION)

clibs: $(CBUILD)/librotationd.so $(CBUILD)/libgstrotationd.so

$(CBUILD)/%.o: librotationd/%.c librotationd/rotationd.h librotationd/message.h
	@mkdir -p $(CBUILD)
	$(CC) $(C_WARNINGS) -fPIC -fvisibility=hidden $(CPPFLAGS) $(JSONC_CFLAGS) $(CFLAGS) -c $< -o $@

$(CBUILD)/$(LIB_REAL): $(LIB_OBJS) librotationd/librotationd.map
	$(CC) -shared -fPIC $(CFLAGS) $(LDFLAGS) -Wl,-soname,librotationd.so.0 -Wl,--version-script=librotationd/librotationd.map \
		-Wl,--no-undefined -Wl,--as-needed -o $@ $(LIB_OBJS) $(JSONC_LIBS) -lm

$(CBUILD)/librotationd.so: $(CBUILD)/$(LIB_REAL)
	ln -sf $(LIB_REAL) $(CBUILD)/librotationd.so.0
	ln -sf librotationd.so.0 $@

$(CBUILD)/libgstrotationd.so: gst/gstrotationdtag.c librotationd/rotationd.h $(CBUILD)/librotationd.so
	$(CC) $(C_WARNINGS) -shared -fPIC -DROTATIOND_VERSION='"$(VERSION)"' -Ilibrotationd $(CPPFLAGS) $(GST_CFLAGS) $(CFLAGS) $(LDFLAGS) \
		-Wl,--no-undefined -Wl,--as-needed -o $@ $< -L$(CBUILD) -lrotationd $(GST_LIBS)

# The QtSensors backend plugin (qt/, Docs/qt.md): a QOrientationSensor backend named rotationd.orientation,
# built with the C++ compiler against Qt6Sensors and librotationd, after moc (qt6-base-dev-tools).
QT_CFLAGS = $(shell pkg-config --cflags Qt6Sensors)
QT_LIBS = $(shell pkg-config --libs Qt6Sensors)
MOC = $(shell pkg-config --variable=libexecdir Qt6Core)/moc
CXXFLAGS ?= -O2 -g
CXX_WARNINGS = -std=c++17 -Wall -Wextra
QT_PLUGIN = $(CBUILD)/libqtsensors_rotationd.so

qt: $(QT_PLUGIN)

$(CBUILD)/moc_rotationdsensors.cpp: qt/rotationdsensors.h
	@mkdir -p $(CBUILD)
	$(MOC) $(filter -I% -D%,$(QT_CFLAGS)) $< -o $@

$(QT_PLUGIN): qt/rotationdsensors.cpp qt/rotationdsensors.h $(CBUILD)/moc_rotationdsensors.cpp librotationd/rotationd.h $(CBUILD)/librotationd.so
	$(CXX) $(CXX_WARNINGS) -shared -fPIC -fvisibility=hidden -Ilibrotationd -Iqt $(CPPFLAGS) $(QT_CFLAGS) $(CXXFLAGS) $(LDFLAGS) \
		-Wl,--no-undefined -Wl,--as-needed -o $@ qt/rotationdsensors.cpp $(CBUILD)/moc_rotationdsensors.cpp -L$(CBUILD) -lrotationd $(QT_LIBS)

# The C tests, normally and under AddressSanitizer and UBSan, the parser under libFuzzer, and the GStreamer
# pipelines read back by exiftool, against the Swift binaries in ROTATIOND_BIN_DIR (default .build/debug).
test-c: deps
	./scripts/test-c.sh

release: deps binaries

# The release build alone, without installing build dependencies: the two commands the package ships and
# follow-rotation, the subscriber the memory report measures (the fuzz targets and benchmarks build their own).
RELEASE_PRODUCTS = rotationd rotwatch follow-rotation
binaries:
	for p in $(RELEASE_PRODUCTS); do $(RELEASE) --product $$p || exit 1; done

# The man pages, from their scdoc sources in man/.
MANPAGES = build/man/rotationd.8 build/man/rotwatch.1 build/man/librotationd.3
man: $(MANPAGES)
build/man/%: man/%.scd
	@mkdir -p build/man
	scdoc < $< > $@

# The binary Debian packages in dist/, built by debhelper (debian/rules) from the release build: rotationd,
# librotationd0, librotationd-dev, gstreamer1.0-rotationd and qt6-sensors-rotationd. Their version is the one the built rotationd prints.
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
	./scripts/bench-first-answer.sh
	./scripts/bench-stages.sh
	./scripts/bench-quality.sh
	./scripts/bench-engine.sh
	./scripts/bench-fanout.sh
	./scripts/bench-gst.sh

# Installs the binaries from BUILD_DIR as they are (for packaging: build first, then install with DESTDIR,
# possibly as another user). Only when they are missing from the default BUILD_DIR does it build a release,
# without installing build dependencies.
BUILD_DIR ?= .build/release
install: install-data install-c install-qt
	@if [ ! -x $(BUILD_DIR)/rotationd ] || [ ! -x $(BUILD_DIR)/rotwatch ]; then \
		if [ "$(BUILD_DIR)" = .build/release ]; then $(MAKE) binaries; \
		else echo "make install: no rotationd and rotwatch in BUILD_DIR=$(BUILD_DIR); build them first" >&2; exit 1; fi; \
	fi
	install -d $(BINDIR)
	install -m 0755 $(BUILD_DIR)/rotationd $(BUILD_DIR)/rotwatch $(BINDIR)/

# The C library (its header, man page, pkg-config module rotationd and the shared object with its links) and the
# GStreamer element. The element goes where GStreamer looks for plugins (its pluginsdir, whatever PREFIX is);
# GSTPLUGINDIR=DIR puts it elsewhere, for GST_PLUGIN_PATH=DIR. Installed on this machine (no DESTDIR), ldconfig
# makes the new library known to the loader.
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
GSTPLUGINDIR ?= $(shell pkg-config --variable=pluginsdir gstreamer-1.0)
install-c: clibs build/man/librotationd.3
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(GSTPLUGINDIR) $(DESTDIR)$(MANDIR)/man3
	install -m 0644 $(CBUILD)/$(LIB_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(LIB_REAL) $(DESTDIR)$(LIBDIR)/librotationd.so.0
	ln -sf librotationd.so.0 $(DESTDIR)$(LIBDIR)/librotationd.so
	install -m 0644 librotationd/rotationd.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 0644 build/man/librotationd.3 $(DESTDIR)$(MANDIR)/man3/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		librotationd/rotationd.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/rotationd.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/rotationd.pc
	install -m 0644 $(CBUILD)/libgstrotationd.so $(DESTDIR)$(GSTPLUGINDIR)/
	if [ -z "$(DESTDIR)" ] && [ -w /etc/ld.so.cache ]; then ldconfig; fi

# The QtSensors plugin goes where Qt looks for sensor plugins (its QT_INSTALL_PLUGINS/sensors, whatever PREFIX is);
# QTPLUGINDIR=DIR puts it elsewhere, for QT_PLUGIN_PATH=DIR/.. (Docs/qt.md).
QTPLUGINDIR ?= $(shell qtpaths6 --query QT_INSTALL_PLUGINS)/sensors
install-qt: qt
	install -d $(DESTDIR)$(QTPLUGINDIR)
	install -m 0644 $(QT_PLUGIN) $(DESTDIR)$(QTPLUGINDIR)/

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
	install -d $(DESTDIR)$(DATADIR)
	sed -e 's|@BINDIR@|$(PREFIX)/bin|g' -e 's|@DATADIR@|$(DATADIR)|g' systemd/tablet-mode-switch.conf.in > $(DESTDIR)$(DATADIR)/tablet-mode-switch.conf
	chmod 0644 $(DESTDIR)$(DATADIR)/tablet-mode-switch.conf
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
	rm -f $(DESTDIR)$(DATADIR)/tablet-mode-switch.conf
	rm -f $(DESTDIR)$(MANDIR)/man1/rotwatch.1 $(DESTDIR)$(MANDIR)/man8/rotationd.8
	rm -f $(DESTDIR)$(BASHCOMPLETIONDIR)/rotationd $(DESTDIR)$(BASHCOMPLETIONDIR)/rotwatch
	rm -rf $(DESTDIR)$(DOCDIR)
	rm -f $(DESTDIR)$(LIBDIR)/$(LIB_REAL) $(DESTDIR)$(LIBDIR)/librotationd.so.0 $(DESTDIR)$(LIBDIR)/librotationd.so
	rm -f $(DESTDIR)$(INCLUDEDIR)/rotationd.h $(DESTDIR)$(PKGCONFIGDIR)/rotationd.pc $(DESTDIR)$(GSTPLUGINDIR)/libgstrotationd.so
	rm -f $(DESTDIR)$(MANDIR)/man3/librotationd.3
	rm -f $(DESTDIR)$(QTPLUGINDIR)/libqtsensors_rotationd.so

clean:
	rm -rf .build build dist
	rm -rf debian/rotationd debian/librotationd0 debian/librotationd-dev debian/gstreamer1.0-rotationd debian/qt6-sensors-rotationd debian/.debhelper debian/tmp
	rm -f debian/changelog debian/files debian/*.substvars debian/*.debhelper debian/*.debhelper.log debian/debhelper-build-stamp
