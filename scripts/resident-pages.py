#!/usr/bin/python3
"""Prints where a running process's resident memory is: per mapping, and for ELF files per section and for
the program itself per symbol.

    resident-pages.py PID|--pid-env [--symbols N] [--label NAME] [--brief] [--save FILE]

--pid-env takes the process id from $PROGRAM_PID. --brief prints the mappings only, not the program's sections
and symbols. --save writes the resident kB per mapping as JSON, for comparing runs.

Resident means present in the process's page table (/proc/PID/pagemap, bit 63; reading it needs root or
CAP_SYS_ADMIN, as the frame numbers do not matter here only the present bits are used). The total is the
process's RSS (/proc/PID/smaps_rollup). A file page counts once it is mapped, whether the program read it or
the kernel mapped it around a fault on a neighbouring page (fault-around maps up to 64 KiB of pages already in
the page cache).

Each resident page of an ELF file is split between the sections (and, for the program, the symbols) it holds,
by bytes; bytes of a resident page that no section or symbol covers are shown as "(between)".
Anonymous mappings are named after what lies in them: the program's .bss, a thread's stack (found from the
thread's stack pointer in /proc/PID/task/TID/syscall), a malloc arena (64 MiB aligned), [heap], [stack].
Standard library only.
"""
import collections
import json
import os
import re
import struct
import subprocess
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")


def kb(n_bytes):
    return "%d" % round(n_bytes / 1024)


class Mapping:
    def __init__(self, line):
        fields = line.split(None, 5)
        lo, hi = fields[0].split("-")
        self.start, self.end = int(lo, 16), int(hi, 16)
        self.perms = fields[1]
        self.offset = int(fields[2], 16)
        self.path = fields[5].strip() if len(fields) > 5 else ""
        self.fields = {}
        self.resident = []  # addresses of resident pages

    @property
    def size(self):
        return self.end - self.start


def read_mappings(pid):
    maps = []
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                maps.append(Mapping(line))
            else:
                key, _, value = line.partition(":")
                if value.strip().endswith("kB"):
                    maps[-1].fields[key] = int(value.split()[0])
    return maps


def read_present(pid, maps):
    with open("/proc/%d/pagemap" % pid, "rb") as f:
        for m in maps:
            if m.path == "[vsyscall]":
                continue
            n = m.size // PAGE
            f.seek(m.start // PAGE * 8)
            data = f.read(n * 8)
            for i, (entry,) in enumerate(struct.iter_unpack("<Q", data)):
                if entry >> 63 & 1:
                    m.resident.append(m.start + i * PAGE)


class Elf:
    """The section headers, program headers and symbol table of a 64-bit little-endian ELF file."""

    def __init__(self, path, want_symbols):
        with open(path, "rb") as f:
            self.data = data = f.read()
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise ValueError("not a 64-bit little-endian ELF file")
        (self.type, _, _, _, phoff, shoff, _, _, phentsize, phnum, shentsize, shnum,
         shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", data, 16)
        self.segments = []
        for i in range(phnum):
            p_type, _, p_offset, p_vaddr, _, p_filesz, p_memsz, _ = struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
            if p_type == 1:  # PT_LOAD
                self.segments.append((p_offset, p_vaddr, p_filesz, p_memsz))
        raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
        names = raw[shstrndx]

        def name_at(table, off):
            start = table[4] + off
            return data[start:data.index(b"\0", start)].decode("utf-8", "replace")

        self.sections = []
        for i, (sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, _, _, sh_entsize) in enumerate(raw):
            name = name_at(names, sh_name)
            if sh_flags & 2 and sh_size:  # SHF_ALLOC
                self.sections.append((sh_addr, sh_addr + sh_size, name))
        self.sections.sort()
        self.symbols = []
        if want_symbols:
            for sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, _, _, sh_entsize in raw:
                if sh_type != 2:  # SHT_SYMTAB
                    continue
                strtab = raw[sh_link]
                for off in range(sh_offset, sh_offset + sh_size, sh_entsize):
                    st_name, st_info, _, st_shndx, st_value, st_size = struct.unpack_from("<IBBHQQ", data, off)
                    if st_size and st_shndx and st_info & 0xF in (1, 2) and st_value:  # OBJECT, FUNC
                        self.symbols.append((st_value, st_value + st_size, name_at(strtab, st_name)))
            self.symbols.sort()
            # Aliases share an address: keep one name per start.
            unique = []
            for s in self.symbols:
                if not unique or unique[-1][0] != s[0]:
                    unique.append(s)
            self.symbols = unique

    def bias(self, m):
        """The load bias of a mapping of this file: its address minus the file's own address for it."""
        for p_offset, p_vaddr, p_filesz, _ in self.segments:
            aligned = p_offset - p_offset % PAGE
            if aligned <= m.offset < p_offset + p_filesz:
                return m.start - (p_vaddr - p_vaddr % PAGE + m.offset - aligned)
        return None


def spread(ranges, pages, page_size=PAGE):
    """Bytes of each named range that lie in the given pages (addresses in the ranges' space); the bytes of
    those pages no range covers go to "(between)". `ranges` is sorted by start and does not overlap much."""
    out = collections.Counter()
    starts = [r[0] for r in ranges]
    import bisect
    for page in pages:
        end = page + page_size
        covered = 0
        i = max(bisect.bisect_right(starts, page) - 1, 0)
        while i < len(ranges) and ranges[i][0] < end:
            lo, hi, name = ranges[i]
            n = min(hi, end) - max(lo, page)
            if n > 0:
                out[name] += n
                covered += n
            i += 1
        if covered < page_size:
            out["(between)"] += page_size - min(covered, page_size)
    return out


def symbol_group(name):
    """Where a symbol comes from, told by its name."""
    m = re.match(r"^\$s(\d+)([A-Za-z_][A-Za-z0-9_]*)", name)
    if m:
        n = int(m.group(1))
        return "Swift module " + m.group(2)[:n]
    if name.startswith(("$ss", "$sS", "$sy", "$sB", "$sx", "$sq")) or name.startswith("$s") and not name[2:3].isdigit():
        return "Swift standard library (Swift code)"
    if name.startswith(("_swift_stdlib_", "swift::_swift_stdlib")):
        return "Swift standard library (C tables and helpers)"
    if name.startswith(("_ZN5swift", "_ZNK5swift", "swift_", "_swift_", "_ZL", "_ZN12_GLOBAL__N_1")):
        return "Swift runtime (C++)"
    if name.startswith(("_dispatch", "dispatch_", "_os_", "_Block", "_NSConcrete")):
        return "libdispatch, BlocksRuntime"
    if name.startswith(("_ZNSt", "_ZSt", "_ZNKSt", "_ZN9__gnu_cxx", "_ZTV", "_ZTI", "_ZTS")):
        return "C++ library code (inlined templates, vtables)"
    return "other: " + re.sub(r"[0-9].*$", "", name)[:24]


def demangle(names):
    if not names:
        return {}
    try:
        out = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names),
                             capture_output=True, text=True, check=True).stdout.split("\n")
        swift = dict(zip(names, out))
    except (OSError, subprocess.CalledProcessError):
        swift = {n: n for n in names}
    cxx = [n for n in names if n.startswith("_Z")]
    if cxx:
        try:
            out = subprocess.run(["c++filt"], input="\n".join(cxx), capture_output=True, text=True, check=True).stdout.split("\n")
            swift.update(zip(cxx, out))
        except (OSError, subprocess.CalledProcessError):
            pass
    return swift


def thread_stacks(pid):
    """Maps each thread's stack pointer to its name, for naming anonymous mappings."""
    stacks = []
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            name = open("/proc/%d/task/%s/comm" % (pid, tid)).read().strip()
            words = open("/proc/%d/task/%s/syscall" % (pid, tid)).read().split()
        except OSError:
            continue
        if len(words) >= 3 and words[0] not in ("running",):
            stacks.append((int(words[-2], 16), name))
    return stacks


def name_mapping(m, exe, exe_end, stacks):
    if m.path and not m.path.startswith("["):
        base = os.path.basename(m.path)
        return base if m.path != exe else base + " (the program)"
    if m.path == "[stack]":
        return "[stack] (main thread)"
    if m.path:
        return m.path
    for sp, name in stacks:
        if m.start <= sp < m.end:
            return "thread stack: " + name
    if exe_end and m.start == exe_end:
        return "the program's .bss (zero-initialised data)"
    if m.start % (64 << 20) == 0:
        return "malloc arena (a thread's heap)"
    return "anonymous"


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    pid = int(os.environ["PROGRAM_PID"]) if args[0] == "--pid-env" else int(args[0])
    top = 30
    label = None
    if "--symbols" in args:
        top = int(args[args.index("--symbols") + 1])
    if "--label" in args:
        label = args[args.index("--label") + 1]
    brief = "--brief" in args
    save = args[args.index("--save") + 1] if "--save" in args else None
    exe = os.readlink("/proc/%d/exe" % pid)
    maps = read_mappings(pid)
    read_present(pid, maps)
    stacks = thread_stacks(pid)
    rollup = {}
    for line in open("/proc/%d/smaps_rollup" % pid):
        key, _, value = line.partition(":")
        if value.strip().endswith("kB"):
            rollup[key] = int(value.split()[0])

    exe_maps = [m for m in maps if m.path == exe]
    exe_end = exe_maps[-1].end if exe_maps else None

    # Per mapping name: resident bytes by kind (text = executable, ro = read-only, rw = writable) and in all.
    rows = collections.OrderedDict()
    for m in maps:
        if not m.resident:
            continue
        name = name_mapping(m, exe, exe_end, stacks)
        kind = "x" if "x" in m.perms else ("w" if "w" in m.perms else "r")
        row = rows.setdefault(name, collections.Counter())
        row[kind] += len(m.resident) * PAGE
        row["all"] += len(m.resident) * PAGE
        row["path"] = m.path

    total = sum(r["all"] for r in rows.values())
    title = label or os.path.basename(exe)
    print("%s (pid %d): %s kB resident (smaps_rollup Rss %d kB: %d kB anonymous, %d kB file-backed; Pss %d kB)"
          % (title, pid, kb(total), rollup.get("Rss", 0), rollup.get("Anonymous", 0),
             rollup.get("Rss", 0) - rollup.get("Anonymous", 0), rollup.get("Pss", 0)))
    print()
    print("resident kB per mapping (x: executable, r: read-only, w: writable) and the sections they hold")
    print("%7s %6s %6s %6s  %s" % ("kB", "x", "r", "w", "mapping"))
    elf_cache = {}
    for name, row in sorted(rows.items(), key=lambda kv: -kv[1]["all"]):
        detail = ""
        path = row["path"]
        if path and path.startswith("/") and os.path.isfile(path):
            try:
                elf = elf_cache.setdefault(path, Elf(path, want_symbols=False))
                bysec = section_bytes(elf, [m for m in maps if m.path == path])
                parts = ["%s %s" % (s, kb(n)) for s, n in bysec.most_common(4) if n >= 4096]
                detail = "   [" + ", ".join(parts) + "]" if parts else ""
            except (OSError, ValueError):
                pass
        print("%7s %6s %6s %6s  %s%s" % (kb(row["all"]), kb(row["x"]), kb(row["r"]), kb(row["w"]), name, detail))
    print("%7s  total" % kb(total))
    if save:
        with open(save, "w") as f:
            json.dump({"total": round(total / 1024), "rss": rollup.get("Rss", 0),
                       "mappings": {("the program" if row["path"] == exe else name): round(row["all"] / 1024)
                                    for name, row in rows.items()}}, f)

    if brief or not exe_maps:
        return 0
    elf = Elf(exe, want_symbols=True)
    print()
    print("the program, %s: resident kB per section (of the section's size)" % exe)
    bss = [m for m in maps if m.start == exe_end and not m.path]
    bysec = section_bytes(elf, exe_maps, bss)
    sizes = {name: hi - lo for lo, hi, name in elf.sections}
    for name, n in bysec.most_common():
        if n >= 1024:
            print("%7s of %6s  %s" % (kb(n), kb(sizes.get(name, 0)) if name in sizes else "-", name))
    pages = file_pages(elf, exe_maps, bss)
    bysym = spread(elf.symbols, pages)
    groups = collections.Counter()
    for name, n in bysym.items():
        groups["(between symbols: headers, relocations, tables without symbols)" if name == "(between)" else symbol_group(name)] += n
    print()
    print("the program: resident kB per origin of the symbols on its resident pages")
    for name, n in groups.most_common():
        if n >= 1024:
            print("%7s  %s" % (kb(n), name))
    print()
    print("the program: the %d symbols with the most resident bytes" % top)
    best = [(n, s) for s, n in bysym.most_common() if s != "(between)"][:top]
    names = demangle([s for _, s in best])
    size_of = {name: hi - lo for lo, hi, name in elf.symbols}
    for n, s in best:
        shown = names.get(s, s)
        if len(shown) > 110:
            shown = shown[:107] + "..."
        print("%7s of %6s  %s" % (kb(n), kb(size_of.get(s, 0)), shown))
    return 0


def file_pages(elf, file_maps, bss_maps=()):
    """The resident pages of a mapped ELF file (and of its .bss beyond the file), as addresses in the file's
    own address space."""
    pages = []
    bias = None
    for m in file_maps:
        b = elf.bias(m)
        if b is None:
            continue
        bias = b
        pages += [a - b for a in m.resident]
    if bias is not None:
        for m in bss_maps:
            pages += [a - bias for a in m.resident]
    return pages


def section_bytes(elf, file_maps, bss_maps=()):
    return spread(elf.sections, file_pages(elf, file_maps, bss_maps))


if __name__ == "__main__":
    sys.exit(main())
